import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mariadbRelease, mariadbReleaseIsFixed, opensWithSandbox } from './agent-backup.ts';

describe('the MariaDB client tools a restore trusts (issue 35)', () => {
  it('reads the release from both forms of --version', () => {
    expect(mariadbRelease('mariadb  Ver 15.1 Distrib 10.11.19-MariaDB, for debian-linux-gnu (x86_64) using  EditLine wrapper')).toEqual([10, 11, 19]);
    expect(mariadbRelease('mariadb from 11.8.3-MariaDB, client 15.2 for debian-linux-gnu (x86_64) using  EditLine wrapper')).toEqual([11, 8, 3]);
    expect(mariadbRelease('mariadb-dump  Ver 10.19 Distrib 10.11.6-MariaDB, for debian-linux-gnu (x86_64)')).toEqual([10, 11, 6]);
    expect(mariadbRelease('mysql  Ver 8.0.36 for Linux on x86_64 (MySQL Community Server - GPL)')).toBeUndefined();
  });

  it('accepts releases with the sandbox fix and its --binary-mode fix only', () => {
    for (const fixed of [[10, 11, 9], [10, 11, 19], [10, 6, 19], [10, 5, 26], [11, 4, 3], [11, 5, 2], [11, 8, 3], [12, 0, 1]] as const) expect(mariadbReleaseIsFixed([...fixed]), fixed.join('.')).toBe(true);
    for (const old of [[10, 11, 6], [10, 11, 8], [10, 6, 18], [10, 4, 34], [10, 10, 7], [11, 0, 6], [11, 3, 2], [11, 4, 2]] as const) expect(mariadbReleaseIsFixed([...old]), old.join('.')).toBe(false);
  });

  describe('the first line of a dump', () => {
    let dir: string;
    beforeEach(async () => {
      dir = await mkdtemp(path.join(os.tmpdir(), 'devplein-dump-'));
    });
    afterEach(async () => {
      await rm(dir, { recursive: true, force: true });
    });
    const dump = async (text: string) => {
      const file = path.join(dir, 'u1_a.sql');
      await writeFile(file, text);
      return opensWithSandbox(file);
    };

    it('is the sandbox command of a fixed mariadb-dump, or the dump is refused', async () => {
      expect(await dump('/*!999999\\- enable the sandbox mode */ \n-- MariaDB dump 10.19\n')).toBe(true);
      expect(await dump('/*M!999999\\- enable the sandbox mode */ \n-- MariaDB dump 10.19\n')).toBe(true);
      expect(await dump('-- MariaDB dump 10.19  Distrib 10.11.6-MariaDB\n/*!999999\\- enable the sandbox mode */\n')).toBe(false);
      expect(await dump('')).toBe(false);
      expect(await dump('/*!999999\\- enable the sandbox mode */ \\! id\n')).toBe(false);
    });
  });
});
