/*
 * The production node_modules of the release bundle, taken from the lockfile.
 *
 * Why this way (and not `npm ci --omit=dev` in the staging folder): package-lock.json already
 * says, for every installed package, where it sits and what it depends on. Walking that graph
 * from the packages the compiled code imports gives exactly their production closure, with the
 * versions and the folder layout (hoisted or nested) that `npm ci` installed and that the tests
 * ran against, overrides included (soketi's uWebSockets.js). The files are copied from this
 * checkout's node_modules, which `npm ci` made from that same lockfile: no second resolution
 * that could pick other versions, no network, and no lockfile subset to generate (npm has no
 * command for one, and a hand-made one is easy to get subtly wrong).
 */
import { existsSync } from 'node:fs';
import { cp, readFile } from 'node:fs/promises';
import path from 'node:path';

/** One entry of package-lock.json's `packages` (lockfile version 2 and 3). */
export interface LockEntry {
  name?: string;
  version?: string;
  link?: boolean;
  resolved?: string;
  hasInstallScript?: boolean;
  /** Installed only for development dependencies. */
  dev?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

export interface Lockfile {
  /** Lockfile path ('' is the root, 'control-plane' a workspace, 'node_modules/x/node_modules/y') → entry. */
  packages: Record<string, LockEntry>;
}

export async function readLockfile(file: string): Promise<Lockfile> {
  const parsed = JSON.parse(await readFile(file, 'utf8')) as { lockfileVersion?: number; packages?: Record<string, LockEntry> };
  if (!parsed.packages || (parsed.lockfileVersion ?? 0) < 2) throw new Error(`${file}: lockfile version 2 or 3 expected (npm 7+)`);
  return { packages: parsed.packages };
}

/**
 * Where node finds package `name` from the package at lockfile path `from`: its own
 * node_modules, then each enclosing one up to the root's.
 */
export function resolveInLockfile(lockfile: Lockfile, from: string, name: string): string | undefined {
  let dir = from;
  for (;;) {
    const candidate = dir === '' ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
    if (lockfile.packages[candidate]) return candidate;
    if (dir === '') return undefined;
    const nested = dir.lastIndexOf('/node_modules/');
    dir = nested === -1 ? '' : dir.slice(0, nested);
  }
}

/** A package to start from: `name` as node resolves it from the folder `from` ('' is the repository root). */
export interface TreeRoot {
  from: string;
  name: string;
}

/**
 * Lockfile paths of `roots` and everything they need at run time: dependencies (type packages
 * aside), and the optional and peer dependencies that are installed (`installed`: npm leaves
 * out an optional package of another platform, or one whose install failed). A missing required dependency is
 * an error (the lockfile and node_modules disagree); a workspace link means a workspace package
 * was left out of a server bundle, which the bundle must never do.
 */
export function productionClosure(lockfile: Lockfile, roots: TreeRoot[], installed: (lockPath: string) => boolean): string[] {
  const found = new Set<string>();
  const visit = (from: string, name: string, required: boolean): void => {
    // Type declarations never load at run time, though some packages list them as dependencies (pusher, protobufjs).
    if (name.startsWith('@types/')) return;
    const at = resolveInLockfile(lockfile, from, name);
    if (at === undefined || (!required && !installed(at))) {
      if (required) throw new Error(`${name} (needed by ${from || 'the root'}) is not in package-lock.json`);
      return;
    }
    if (found.has(at)) return;
    const entry = lockfile.packages[at]!;
    if (entry.link) throw new Error(`${name} is a workspace link (${entry.resolved}): workspace packages belong inside the server bundles`);
    found.add(at);
    for (const dependency of Object.keys(entry.dependencies ?? {})) visit(at, dependency, true);
    for (const dependency of Object.keys(entry.optionalDependencies ?? {})) visit(at, dependency, false);
    for (const [dependency] of Object.entries(entry.peerDependencies ?? {})) visit(at, dependency, entry.peerDependenciesMeta?.[dependency]?.optional !== true);
  };
  for (const root of roots) visit(root.from, root.name, true);
  return [...found].sort();
}

/** True for a file (or folder) to leave out: `relativeFile` ('/'-separated) inside the package folder `packageDir`. */
export type FileFilter = (packageDir: string, relativeFile: string) => boolean;

/** A node-gyp output folder: `build` beside a binding.gyp (not a package's compiled JavaScript in build/). */
function isNodeGypBuild(packageDir: string, relativeFile: string): boolean {
  const parts = relativeFile.split('/');
  const at = parts.indexOf('build');
  return at !== -1 && existsSync(path.join(packageDir, ...parts.slice(0, at), 'binding.gyp'));
}

/**
 * Files nobody runs: TypeScript (sources and declarations), source maps, and node-gyp's build
 * output when the tree runs on another node than the one that built it (a native addon is built
 * for one node ABI; ssh2 and cpu-features fall back to JavaScript without theirs).
 */
export function notNeededAtRunTime(options: { keepNativeBuilds: boolean }): FileFilter {
  return (packageDir, relativeFile) =>
    /\.(?:[cm]?ts|map)$/.test(relativeFile) || (!options.keepNativeBuilds && isNodeGypBuild(packageDir, relativeFile));
}

/**
 * Copies the packages at `lockPaths` from `sourceRoot` (a checkout installed by `npm ci`) to the
 * same relative paths under `targetRoot`, each without its own node_modules (nested packages
 * are copied only when they are in `lockPaths` themselves) and without the files `leaveOut`
 * names.
 */
export async function copyPackages(sourceRoot: string, targetRoot: string, lockPaths: string[], leaveOut: FileFilter): Promise<void> {
  for (const lockPath of lockPaths) {
    const source = path.join(sourceRoot, lockPath);
    await cp(source, path.join(targetRoot, lockPath), {
      recursive: true,
      // Symlinks inside packages (rare: .bin) are copied as links, never followed out of the package.
      verbatimSymlinks: true,
      filter: (file) => {
        const relative = path.relative(source, file);
        if (relative === '') return true;
        if (relative === 'node_modules' || relative.startsWith(`node_modules${path.sep}`)) return false;
        return !leaveOut(source, relative.split(path.sep).join('/'));
      },
    });
  }
}
