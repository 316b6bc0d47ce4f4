import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withHostLock } from './host-lock.ts';

const folder = mkdtempSync(path.join(tmpdir(), 'host-lock-'));
const lockPath = path.join(folder, 'test.lock');
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('withHostLock (flock(1))', () => {
  it('lets one holder in at a time', async () => {
    const steps: string[] = [];
    let releaseFirst!: () => void;
    const firstMayEnd = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstIn!: () => void;
    const firstEntered = new Promise<void>((resolve) => (firstIn = resolve));
    const first = withHostLock(lockPath, async () => {
      steps.push('first in');
      firstIn();
      await firstMayEnd;
      steps.push('first out');
    });
    await firstEntered;
    const second = withHostLock(lockPath, async () => {
      steps.push('second in');
    });
    // The second waits in flock while the first holds the lock: let it try for a while.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(steps).toEqual(['first in']);
    releaseFirst();
    await Promise.all([first, second]);
    expect(steps).toEqual(['first in', 'first out', 'second in']);
  });

  it('hands the error of the work on and releases the lock', async () => {
    await expect(withHostLock(lockPath, () => Promise.reject(new Error('mislukt')))).rejects.toThrow('mislukt');
    await expect(withHostLock(lockPath, () => Promise.resolve('weer vrij'), 2_000)).resolves.toBe('weer vrij');
  });

  it('says so when the lock cannot be taken', async () => {
    await expect(withHostLock(path.join(folder, 'no-such-folder', 'x.lock'), () => Promise.resolve())).rejects.toThrow(/host lock .* could not be taken/);
  });
});
