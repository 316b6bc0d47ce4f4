import { describe, expect, it } from 'vitest';
import { KeyedLock } from './keyed-lock.ts';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('KeyedLock', () => {
  it('runs work of one key one at a time, in order, and other keys in parallel', async () => {
    const lock = new KeyedLock<number>();
    const log: string[] = [];
    const job = (key: number, name: string, ms: number) =>
      lock.run(key, async () => {
        log.push(`${name} start`);
        await tick(ms);
        log.push(`${name} end`);
        return name;
      });
    const results = await Promise.all([job(1, 'a', 30), job(1, 'b', 1), job(2, 'c', 5)]);
    expect(results).toEqual(['a', 'b', 'c']);
    expect(log.indexOf('b start')).toBeGreaterThan(log.indexOf('a end'));
    expect(log.indexOf('c end')).toBeLessThan(log.indexOf('a end'));
  });

  it('goes on after a failure and passes the failure to its caller', async () => {
    const lock = new KeyedLock<string>();
    const failed = lock.run('k', async () => {
      throw new Error('kapot');
    });
    const next = lock.run('k', async () => 'verder');
    await expect(failed).rejects.toThrow('kapot');
    await expect(next).resolves.toBe('verder');
  });
});
