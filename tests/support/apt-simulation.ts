import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * The packages `apt-get <args>` would install on the Debian tree `tree`, from `apt-get -s`
 * (simulate) against a copy of the tree's apt state: apt writes logs and caches even when it
 * only simulates, and the tree stays untouched.
 */
export async function simulatedInstall(tree: string, args: string[]): Promise<string[]> {
  const state = await mkdtemp(path.join(os.tmpdir(), 'devplein-apt-'));
  try {
    await cp(path.join(tree, 'etc/apt'), path.join(state, 'etc/apt'), { recursive: true });
    await cp(path.join(tree, 'var/lib/apt/lists'), path.join(state, 'var/lib/apt/lists'), { recursive: true });
    await cp(path.join(tree, 'var/lib/dpkg'), path.join(state, 'var/lib/dpkg'), { recursive: true });
    await mkdir(path.join(state, 'var/cache/apt'), { recursive: true });
    await mkdir(path.join(state, 'var/log/apt'), { recursive: true });
    const { stdout } = await run('apt-get', ['-s', '-o', `Dir=${state}`, '-o', 'Debug::NoLocking=1', ...args], {
      env: { PATH: process.env.PATH, LANG: 'C', DEBIAN_FRONTEND: 'noninteractive' },
      maxBuffer: 16 * 1024 * 1024,
      timeout: 120_000,
    });
    return stdout.split('\n').flatMap((line) => /^Inst (\S+)/.exec(line)?.[1] ?? []);
  } finally {
    await rm(state, { recursive: true, force: true });
  }
}

/** The packages dpkg has installed in the tree `tree`. */
export async function installedPackages(tree: string): Promise<Set<string>> {
  const status = await readFile(path.join(tree, 'var/lib/dpkg/status'), 'utf8');
  return new Set(
    status.split('\n\n').flatMap((stanza) => {
      const name = /^Package: (\S+)$/m.exec(stanza)?.[1];
      return name !== undefined && /^Status: install ok installed$/m.test(stanza) ? [name] : [];
    }),
  );
}
