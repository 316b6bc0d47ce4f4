/*
 * Native addons are built for the Node that loads them. N-API ones (bufferutil, utf-8-validate,
 * msgpackr-extract's napi build, rolldown, lightningcss) load in any Node; node-gyp builds made
 * against NAN (ssh2's sshcrypto, cpu-features) load only in a Node of the ABI they were built for,
 * and `npm ci` builds them for the Node running npm (20 here). So after an install the servers'
 * Node rebuilds those once; without a rebuild ssh2 quietly falls back to its slower JavaScript.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { readLockfile } from './release/production-tree.ts';

const run = promisify(execFile);

export interface NativeBuild {
  /** Lockfile path of the package, e.g. node_modules/ssh2. */
  lockPath: string;
  name: string;
  /** The node-gyp outputs (build/Release/*.node) inside it. */
  files: string[];
}

/** build/Release/*.node beside each binding.gyp of a package (ssh2 keeps its own in lib/protocol/crypto). */
function nodeGypOutputs(packageDir: string, depth = 0): string[] {
  if (depth > 4 || !existsSync(packageDir)) return [];
  const found: string[] = [];
  const release = path.join(packageDir, 'build', 'Release');
  if (existsSync(path.join(packageDir, 'binding.gyp')) && existsSync(release)) {
    for (const entry of readdirSync(release)) if (entry.endsWith('.node')) found.push(path.join(release, entry));
  }
  for (const entry of readdirSync(packageDir)) {
    if (entry === 'node_modules' || entry === 'build' || entry.startsWith('.')) continue;
    const child = path.join(packageDir, entry);
    if (statSync(child).isDirectory()) found.push(...nodeGypOutputs(child, depth + 1));
  }
  return found;
}

/** Every installed package with an install script that left node-gyp builds behind. */
export async function nativeBuilds(root: string): Promise<NativeBuild[]> {
  const lockfile = await readLockfile(path.join(root, 'package-lock.json'));
  const builds: NativeBuild[] = [];
  for (const [lockPath, entry] of Object.entries(lockfile.packages)) {
    if (!entry.hasInstallScript || !lockPath.includes('node_modules/')) continue;
    const files = nodeGypOutputs(path.join(root, lockPath));
    if (files.length > 0) builds.push({ lockPath, name: lockPath.slice(lockPath.lastIndexOf('node_modules/') + 'node_modules/'.length), files });
  }
  return builds;
}

/** Whether `node` loads `file` (a build for another ABI fails with NODE_MODULE_VERSION). */
export async function loadsIn(node: string, file: string): Promise<boolean> {
  try {
    await run(node, ['-e', 'process.dlopen({ exports: {} }, process.argv[1])', file]);
    return true;
  } catch {
    return false;
  }
}

/** The builds of `root` that `node` cannot load. */
export async function unloadableBuilds(root: string, node: string): Promise<NativeBuild[]> {
  const unloadable: NativeBuild[] = [];
  for (const build of await nativeBuilds(root)) {
    for (const file of build.files) {
      if (!(await loadsIn(node, file))) {
        unloadable.push(build);
        break;
      }
    }
  }
  return unloadable;
}

export interface RebuildOutcome {
  rebuilt: string[];
  /** Packages that still do not load after `npm rebuild` (no compiler?), with npm's last words. */
  failed: Array<{ name: string; reason: string }>;
}

/**
 * Rebuilds, with `npm rebuild`, the native builds of `root` that `node` cannot load. `env` must
 * put that Node first on PATH and its headers in npm_config_nodedir (serverNodeEnv): node-gyp
 * builds for the Node that runs it.
 */
export async function rebuildNativeAddons(root: string, node: string, env: NodeJS.ProcessEnv): Promise<RebuildOutcome> {
  const outcome: RebuildOutcome = { rebuilt: [], failed: [] };
  for (const build of await unloadableBuilds(root, node)) {
    let reason = 'it still does not load';
    try {
      await run('npm', ['rebuild', '--foreground-scripts=false', build.name], { cwd: root, env, maxBuffer: 16 * 1024 * 1024 });
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr ?? String(error);
      reason = stderr.trim().split('\n').slice(-3).join(' / ');
    }
    const loads = await Promise.all(nodeGypOutputs(path.join(root, build.lockPath)).map((file) => loadsIn(node, file)));
    if (loads.length > 0 && loads.every(Boolean)) outcome.rebuilt.push(build.name);
    else outcome.failed.push({ name: build.name, reason });
  }
  return outcome;
}

/** rebuildNativeAddons for the Node running this script (on PATH first: scripts/lib/server-node.ts), saying what it did. */
export async function rebuildNativeAddonsForThisNode(root: string, log: (line: string) => void = console.log): Promise<RebuildOutcome> {
  const outcome = await rebuildNativeAddons(root, process.execPath, process.env);
  const node = `Node ${process.versions.node}`;
  if (outcome.rebuilt.length > 0) log(`native addons rebuilt for ${node}: ${outcome.rebuilt.join(', ')}`);
  for (const { name, reason } of outcome.failed) log(`${name} does not load in ${node} and could not be rebuilt (${reason}): it falls back to JavaScript`);
  if (outcome.rebuilt.length === 0 && outcome.failed.length === 0) log(`native addons: built for ${node}`);
  return outcome;
}
