import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { backupSamples, packageVersion, readWithin, releaseVersion, sharedWhileInFlight } from './operator-gauges.ts';

describe('operator gauges', () => {
  it('takes the release from DEVPLEIN_VERSION, else the package version', () => {
    expect(releaseVersion('0.1.0', { DEVPLEIN_VERSION: ' 2026.12.1 ' })).toBe('2026.12.1');
    expect(releaseVersion('0.1.0', { DEVPLEIN_VERSION: '' })).toBe('0.1.0');
    expect(releaseVersion('0.1.0', {})).toBe('0.1.0');
  });

  it("finds the package's version by name above the module, at any depth (sources, dist/, dist/chunks/)", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'devplein-package-version-'));
    try {
      await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'devplein', version: '9.9.9' }));
      await mkdir(path.join(dir, 'control-plane', 'dist', 'chunks'), { recursive: true });
      await writeFile(path.join(dir, 'control-plane', 'package.json'), JSON.stringify({ name: '@devplein/control-plane', version: '2026.12.1' }));
      for (const module of ['dist/main.js', 'dist/chunks/x.js', 'main.js']) {
        expect(packageVersion(pathToFileURL(path.join(dir, 'control-plane', module)), '@devplein/control-plane')).toBe('2026.12.1');
      }
      expect(packageVersion(pathToFileURL(path.join(dir, 'main.js')), '@devplein/control-plane')).toBe('0.0.0');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
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
