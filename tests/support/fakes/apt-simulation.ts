import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * `apt-get -s` (simulate) against a copy of a Debian tree's apt and dpkg state: apt writes logs
 * and caches even when it only simulates, and the tree stays untouched. One copy serves every
 * simulation (apt builds its package cache once); close() removes it.
 */
export class AptSimulation {
  private constructor(private readonly state: string) {}

  static async of(tree: string): Promise<AptSimulation> {
    const state = await mkdtemp(path.join(os.tmpdir(), 'devplein-apt-'));
    for (const part of ['etc/apt', 'var/lib/apt/lists', 'var/lib/dpkg']) await cp(path.join(tree, part), path.join(state, part), { recursive: true });
    await mkdir(path.join(state, 'var/cache/apt'), { recursive: true });
    await mkdir(path.join(state, 'var/log/apt'), { recursive: true });
    return new AptSimulation(state);
  }

  /** The packages `apt-get <args>` would install. */
  async install(args: string[]): Promise<string[]> {
    const { stdout } = await run('apt-get', ['-s', '-o', `Dir=${this.state}`, '-o', 'Debug::NoLocking=1', ...args], {
      env: { PATH: process.env.PATH, LANG: 'C', DEBIAN_FRONTEND: 'noninteractive' },
      maxBuffer: 16 * 1024 * 1024,
      timeout: 120_000,
    });
    return stdout.split('\n').flatMap((line) => /^Inst (\S+)/.exec(line)?.[1] ?? []);
  }

  /** The packages dpkg has installed in the tree. */
  async installed(): Promise<Set<string>> {
    const status = await readFile(path.join(this.state, 'var/lib/dpkg/status'), 'utf8');
    return new Set(
      status.split('\n\n').flatMap((stanza) => {
        const name = /^Package: (\S+)$/m.exec(stanza)?.[1];
        return name !== undefined && /^Status: install ok installed$/m.test(stanza) ? [name] : [];
      }),
    );
  }

  async close(): Promise<void> {
    await rm(this.state, { recursive: true, force: true });
  }
}
