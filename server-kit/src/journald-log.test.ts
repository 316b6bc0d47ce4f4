import { closeSync, fstatSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { forJournal, journaldHooks, syslogPriority, withSyslogPrefix, writesToJournal } from './journald-log.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'journald-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A file descriptor and the JOURNAL_STREAM systemd would set for it. */
function stream(): { fd: number; journalStream: string } {
  const fd = openSync(path.join(dir, `out-${Math.random()}`), 'w');
  const { dev, ino } = fstatSync(fd);
  return { fd, journalStream: `${dev}:${ino}` };
}

describe('syslogPriority', () => {
  it('maps pino levels to syslog priorities: fatal crit, error err, warn warning, info info, debug and trace debug', () => {
    expect([60, 50, 40, 30, 20, 10].map(syslogPriority)).toEqual([2, 3, 4, 6, 7, 7]);
    // Custom levels in between take the priority of the level below them.
    expect([55, 45, 35, 25].map(syslogPriority)).toEqual([3, 4, 6, 7]);
  });
});

describe('withSyslogPrefix', () => {
  it('puts the priority of the line level in front and leaves the JSON as it was', () => {
    const line = '{"level":50,"time":1,"name":"host-agent","msg":"could not start"}\n';
    expect(withSyslogPrefix(line)).toBe(`<3>${line}`);
    expect(JSON.parse(withSyslogPrefix(line).slice(3))).toEqual(JSON.parse(line));
    expect(withSyslogPrefix('{"level":30,"msg":"listening"}\n')).toBe('<6>{"level":30,"msg":"listening"}\n');
    expect(withSyslogPrefix('{"level":"warn","msg":"x"}\n')).toBe('<4>{"level":"warn","msg":"x"}\n');
  });

  it('leaves a line without a level in front as it is', () => {
    expect(withSyslogPrefix('{"msg":"x","level":50}\n')).toBe('{"msg":"x","level":50}\n');
    expect(withSyslogPrefix('plain text\n')).toBe('plain text\n');
    expect(withSyslogPrefix('{"level":"loud","msg":"x"}\n')).toBe('{"level":"loud","msg":"x"}\n');
  });
});

describe('writesToJournal', () => {
  it('is true only when JOURNAL_STREAM names the device and inode of that very descriptor', () => {
    const first = stream();
    const second = stream();
    try {
      expect(writesToJournal(first.fd, { JOURNAL_STREAM: first.journalStream })).toBe(true);
      // Output redirected elsewhere (a pipe to pino-pretty, a file) keeps the variable but is no journal.
      expect(writesToJournal(first.fd, { JOURNAL_STREAM: second.journalStream })).toBe(false);
      expect(writesToJournal(first.fd, {})).toBe(false);
    } finally {
      closeSync(first.fd);
      closeSync(second.fd);
    }
  });

  it('gives pino a streamWrite hook only under the journal', () => {
    expect(journaldHooks({})).toEqual({});
    const { dev, ino } = fstatSync(1);
    expect(journaldHooks({ JOURNAL_STREAM: `${dev}:${ino}` }).streamWrite).toBe(withSyslogPrefix);
  });
});

describe('forJournal', () => {
  it('prefixes every line for the journal, and nothing elsewhere', () => {
    const { fd, journalStream } = stream();
    try {
      expect(forJournal('Invalid configuration:\n  PORT: x\n', 3, fd, { JOURNAL_STREAM: journalStream })).toBe('<3>Invalid configuration:\n<3>  PORT: x\n');
      expect(forJournal('Invalid configuration:\n', 3, fd, {})).toBe('Invalid configuration:\n');
    } finally {
      closeSync(fd);
    }
  });
});
