/*
 * Completes the release bundle's folder (scripts/release.ts), where the compiled servers and the
 * web app were built in the same places as in the repository (so they find their node_modules,
 * web/dist and each other as they do here): the production node_modules they import, soketi in
 * a folder of its own with its own node, the Node for the servers, the deploy files,
 * install.sh at the top and bin/devplein.
 */
import { existsSync } from 'node:fs';
import { chmod, cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import type { Metafile } from 'esbuild';
import type { CompiledServer } from '../compile-servers.ts';
import { controlPlaneExternal, packageName } from '../server-bundle.ts';
import { unloadableBuilds } from '../native-addons.ts';
import { nodeAbi, serverNode, soketiNode, unpackNode } from './node-runtime.ts';
import { copyPackages, notNeededAtRunTime, productionClosure, resolveInLockfile, type FileFilter, type Lockfile, type TreeRoot } from './production-tree.ts';

export interface StageOptions {
  repoRoot: string;
  /** The bundle's folder (devplein-<version>), holding the compiled servers and web/dist already. */
  stageDir: string;
  version: string;
  compiled: CompiledServer[];
  lockfile: Lockfile;
  /** Where the Node packages are cached between releases. */
  cacheDir: string;
}

export interface StageReport {
  /** npm packages the compiled code may import that are not installed, hence not in the bundle (optional ones: pg-native, …). */
  notInstalled: string[];
  /** Number of npm packages copied, per tree. */
  packages: { servers: number; soketi: number };
}

/** npm packages the compiled JavaScript imports (esbuild's externals, node's own modules aside). */
function importedPackages(metafile: Metafile): string[] {
  const names = new Set<string>();
  for (const output of Object.values(metafile.outputs)) {
    for (const imported of output.imports) {
      if (imported.external && !isBuiltin(imported.path) && !/^[./]/.test(imported.path)) names.add(packageName(imported.path));
    }
  }
  return [...names].sort();
}

/**
 * What each server needs from node_modules: every package its bundle imports (when installed:
 * knex and pg import optional drivers we never use), and the control plane's packages left out
 * of its bundle on purpose that it requires by name at run time (PGlite, sshpk: esbuild cannot
 * see those) — the ones its package.json depends on.
 */
async function serverRoots(options: StageOptions, notInstalled: Set<string>): Promise<TreeRoot[]> {
  const roots: TreeRoot[] = [];
  for (const { workspace, metafile } of options.compiled) {
    const manifest = JSON.parse(await readFile(path.join(options.repoRoot, workspace, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    const byName = workspace === 'control-plane' ? controlPlaneExternal.filter((name) => manifest.dependencies?.[name] !== undefined) : [];
    for (const name of new Set([...importedPackages(metafile), ...byName])) {
      if (resolveInLockfile(options.lockfile, workspace, name) === undefined) notInstalled.add(name);
      else roots.push({ from: workspace, name });
    }
  }
  return roots;
}

/**
 * uWebSockets.js ships 21 native binaries (about 110 MB, every platform and Node, some twice):
 * soketi's node loads one of them, binaries/uws_linux_x64_<its ABI>.node.
 */
function otherUwsBinaries(abi: string): FileFilter {
  return (packageDir, relativeFile) =>
    path.basename(packageDir) === 'uWebSockets.js' && relativeFile.endsWith('.node') && relativeFile !== `binaries/uws_linux_x64_${abi}.node`;
}

const either =
  (...filters: FileFilter[]): FileFilter =>
  (packageDir, relativeFile) =>
    filters.some((filter) => filter(packageDir, relativeFile));

/** package.json of a server's folder in the bundle: ES modules, and the version the agent reports. */
async function writeServerManifest(stageDir: string, workspace: string, version: string): Promise<void> {
  const manifest = { name: `@devplein/${workspace}`, version, private: true, type: 'module' };
  await writeFile(path.join(stageDir, workspace, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}

export async function stageBundle(options: StageOptions): Promise<StageReport> {
  const { repoRoot, stageDir, version } = options;
  const from = (relative: string): string => path.join(repoRoot, relative);
  const to = (relative: string): string => path.join(stageDir, relative);
  await mkdir(stageDir, { recursive: true });

  const serverNodeBinary = await unpackNode(serverNode, options.cacheDir, to('node'));
  const soketiNodeBinary = await unpackNode(soketiNode, options.cacheDir, to('soketi/node'));
  const buildAbi = process.versions.modules;

  for (const { workspace } of options.compiled) await writeServerManifest(stageDir, workspace, version);
  await cp(from('deploy'), to('deploy'), { recursive: true });
  // `sudo ./install.sh control-plane|agent` from the unpacked bundle (it finds the bundle from its own path).
  await cp(from('deploy/install.sh'), to('install.sh'));
  await chmod(to('install.sh'), 0o755);
  await cp(from('CHANGELOG.md'), to('CHANGELOG.md'));
  await writeFile(to('VERSION'), `${version}\n`);
  await mkdir(to('bin'));
  await cp(from('scripts/lib/release/devplein.sh'), to('bin/devplein'));
  await chmod(to('bin/devplein'), 0o755);

  const installed = (lockPath: string): boolean => existsSync(path.join(repoRoot, lockPath, 'package.json'));
  const notInstalled = new Set<string>();
  // node-gyp builds against NAN load only in a node of the ABI they were built for (release.ts
  // rebuilds them for Node 24 first); should one not load, they are all left out, and with them
  // an optional package that is nothing but a build (cpu-features): ssh2 then runs on JavaScript.
  const serverNativeBuilds = (await unloadableBuilds(repoRoot, serverNodeBinary)).length === 0;
  const serverOptional = (lockPath: string): boolean => installed(lockPath) && (serverNativeBuilds || !options.lockfile.packages[lockPath]?.hasInstallScript);
  const servers = productionClosure(options.lockfile, await serverRoots(options, notInstalled), serverOptional);
  // A server that finds a package only development dependencies install works here by chance
  // (as the agent did with pm2's croner) and breaks wherever those are left out.
  const devOnly = servers.filter((lockPath) => options.lockfile.packages[lockPath]?.dev);
  if (devOnly.length > 0) throw new Error(`the compiled servers load packages that only development dependencies install: ${devOnly.join(', ')}`);
  await copyPackages(repoRoot, stageDir, servers, notNeededAtRunTime({ keepNativeBuilds: serverNativeBuilds }));

  // soketi's tree under soketi/: the same layout as in the repository's root node_modules.
  const soketi = productionClosure(options.lockfile, [{ from: '', name: '@soketi/soketi' }], installed);
  const soketiAbi = await nodeAbi(soketiNodeBinary);
  await copyPackages(repoRoot, to('soketi'), soketi, either(notNeededAtRunTime({ keepNativeBuilds: soketiAbi === buildAbi }), otherUwsBinaries(soketiAbi)));

  return { notInstalled: [...notInstalled].sort(), packages: { servers: servers.length, soketi: soketi.length } };
}
