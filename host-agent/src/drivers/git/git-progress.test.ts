import { describe, expect, it } from 'vitest';
import { type GitProgressEvent, GitProgressReader, parseGitProgressLine } from './git-progress.ts';

describe('parseGitProgressLine', () => {
  it.each([
    ['remote: Enumerating objects: 5, done.', { phase: 'enumerating', remote: true, current: 5, done: true }],
    ['remote: Counting objects:  40% (2/5)', { phase: 'counting', remote: true, percent: 40, current: 2, total: 5, done: false }],
    ['remote: Compressing objects: 100% (3/3), done.', { phase: 'compressing', remote: true, percent: 100, current: 3, total: 3, done: true }],
    ['Receiving objects:  45% (10/22), 1.20 MiB | 900.00 KiB/s', { phase: 'receiving', remote: false, percent: 45, current: 10, total: 22, transfer: '1.20 MiB | 900.00 KiB/s', done: false }],
    ['Receiving objects: 100% (22/22), 2.00 MiB | 1.00 MiB/s, done.', { phase: 'receiving', percent: 100, transfer: '2.00 MiB | 1.00 MiB/s', done: true }],
    ['Resolving deltas: 100% (1/1), done.', { phase: 'resolving', percent: 100, done: true }],
    ['Updating files:  50% (1/2)', { phase: 'checking-out', percent: 50, done: false }],
  ])('%s', (line, expected) => {
    expect(parseGitProgressLine(line)).toMatchObject(expected);
  });

  it('ignores lines that are not progress', () => {
    expect(parseGitProgressLine("Cloning into 'x'...")).toBeUndefined();
    expect(parseGitProgressLine('fatal: repository not found')).toBeUndefined();
    expect(parseGitProgressLine('remote: Total 3 (delta 0), reused 0 (delta 0), pack-reused 0')).toBeUndefined();
  });
});

describe('GitProgressReader', () => {
  it('splits on carriage returns across chunks and keeps the other lines', () => {
    const events: GitProgressEvent[] = [];
    const reader = new GitProgressReader((event) => events.push(event));
    reader.push("Cloning into 'x'...\nReceiving objects:  5");
    reader.push('0% (1/2)\rReceiving objects: 100% (2/2), done.\nfatal: oops');
    reader.end();
    expect(events.map((event) => [event.phase, event.percent, event.done])).toEqual([
      ['receiving', 50, false],
      ['receiving', 100, true],
    ]);
    expect(reader.messages()).toEqual(["Cloning into 'x'...", 'fatal: oops']);
  });
});
