import { describe, expect, it } from 'vitest';
import { backupSamples, readWithin, releaseVersion, sharedWhileInFlight } from './operator-gauges.ts';

describe('operator gauges', () => {
  it('takes the release from DEVPLEIN_VERSION, else the package version', () => {
    expect(releaseVersion('0.1.0', { DEVPLEIN_VERSION: ' 2026.12.1 ' })).toBe('2026.12.1');
    expect(releaseVersion('0.1.0', { DEVPLEIN_VERSION: '' })).toBe('0.1.0');
    expect(releaseVersion('0.1.0', {})).toBe('0.1.0');
  });

  it('reports never as a last success of 0 and a run without a readable time as an outcome only', () => {
    const finishedAt = new Date('2026-11-26T03:15:42.500Z');
    expect(backupSamples({ role: 'agent', host: 'dev1', lastSuccessAt: null, lastRun: null })).toEqual({
      lastSuccess: { labels: { role: 'agent', host: 'dev1' }, value: 0 },
      lastRun: null,
      lastRunSuccess: null,
    });
    const failed = backupSamples({ role: 'agent', host: 'dev1', lastSuccessAt: finishedAt, lastRun: { finishedAt: null, ok: false } });
    expect([failed.lastSuccess.value, failed.lastRun, failed.lastRunSuccess?.value]).toEqual([Math.floor(finishedAt.getTime() / 1000), null, 0]);
  });

  it('gives up on a read that fails or takes too long, and says why', async () => {
    const reasons: string[] = [];
    const note = (error: unknown) => reasons.push((error as Error).message);
    expect(await readWithin(async () => 7, 1_000, note)).toBe(7);
    expect(await readWithin(() => Promise.reject(new Error('database down')), 1_000, note)).toBeUndefined();
    expect(await readWithin(() => new Promise<never>(() => undefined), 20, note)).toBeUndefined();
    expect(reasons).toEqual(['database down', 'not read within 20 ms']);
  });

  it('shares one read among the callers while it is in flight, and reads anew after', async () => {
    let reads = 0;
    let finish: (value: number) => void = () => undefined;
    const read = sharedWhileInFlight(() => {
      reads += 1;
      return new Promise<number>((resolve) => (finish = resolve));
    });
    const first = [read(), read(), read()];
    finish(1);
    expect(await Promise.all(first)).toEqual([1, 1, 1]);
    expect(reads).toBe(1);
    const next = read();
    finish(2);
    expect(await next).toBe(2);
    expect(reads).toBe(2);
  });
});
