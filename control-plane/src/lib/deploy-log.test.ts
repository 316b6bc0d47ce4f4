import { describe, expect, it } from 'vitest';
import { DEPLOY_LOG_MAX_LINE, DEPLOY_LOG_MAX_LINES, DeployLog } from './deploy-log.ts';

const line = (n: number) => ({ phase: 'build' as const, text: `regel ${n}`, percent: null });

describe('DeployLog', () => {
  it('keeps every line of a short log and hands out the fresh ones once', () => {
    const log = new DeployLog();
    log.add(line(1));
    log.add(line(2));
    expect(log.take().map((each) => each.text)).toEqual(['regel 1', 'regel 2']);
    expect(log.hasFresh).toBe(false);
    log.add(line(3));
    expect(log.take()).toHaveLength(1);
    expect(log.lines()).toHaveLength(3);
  });

  it('caps a long log to its first and newest lines with a note of what it left out', () => {
    const log = new DeployLog();
    for (let n = 1; n <= 10_000; n++) log.add(line(n));
    const lines = log.lines();
    expect(lines).toHaveLength(DEPLOY_LOG_MAX_LINES);
    expect(lines[0]?.text).toBe('regel 1');
    expect(lines[199]?.text).toBe('regel 200');
    expect(lines[200]?.text).toBe(`… ${10_000 - DEPLOY_LOG_MAX_LINES + 1} regels weggelaten …`);
    expect(lines.at(-1)?.text).toBe('regel 10000');
  });

  it('shortens a very long line', () => {
    const log = new DeployLog();
    log.add({ phase: 'build', text: 'x'.repeat(5_000), percent: null });
    expect(log.lines()[0]?.text).toHaveLength(DEPLOY_LOG_MAX_LINE + 1);
  });
});
