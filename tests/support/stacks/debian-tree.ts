import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Debian releases the trees can be made of. */
export type DebianSuite = 'bookworm' | 'trixie';

/** Outside the clone, so a fresh clone does not download the trees again. */
const cacheRoot = process.env.DEVPLEIN_TEST_CACHE ?? '/var/cache/devplein-tests';

/**
 * A fresh `debootstrap --variant=minbase` tree of `suite` (what a minimal Debian machine has),
 * made once and cached. Treat it as read-only: copy what you change. Needs root and
 * deb.debian.org.
 */
export async function minbaseTree(suite: DebianSuite): Promise<string> {
  const tree = path.join(cacheRoot, `minbase-${suite}`);
  if (existsSync(tree)) return tree;
  if (process.getuid?.() !== 0) throw new Error(`making the Debian tree ${tree} needs root (debootstrap)`);
  if (!existsSync('/usr/sbin/debootstrap')) {
    await run('apt-get', ['install', '-y', '-q', '--no-install-recommends', 'debootstrap'], { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, timeout: 300_000 });
  }
  await mkdir(cacheRoot, { recursive: true });
  // Made beside the cache and renamed into place: a run that stops halfway leaves no half tree.
  const partial = `${tree}.partial-${process.pid}`;
  await rm(partial, { recursive: true, force: true });
  await run('debootstrap', ['--variant=minbase', suite, partial, 'http://deb.debian.org/debian'], { timeout: 900_000, maxBuffer: 64 * 1024 * 1024 });
  await rename(partial, tree);
  return tree;
}
