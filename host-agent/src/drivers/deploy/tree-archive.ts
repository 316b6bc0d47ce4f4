/**
 * The tar of a checkout's tree that the container deployer puts into a container (issue 23,
 * part 2): regular files and folders, owned by the container's web user, without `.git`.
 *
 * What is left out, and why (each one reported as a `SkippedEntry`):
 * - a symbolic link whose target is absolute or leaves the tree (`../..`): inside the container it
 *   would point at the container's own files (a way to serve /etc/passwd); links that stay
 *   inside the tree are kept as links;
 * - device files, FIFOs and sockets: a site has no use for them and git cannot make them anyway.
 * The walk is counted first (file-count and byte caps, before anything is read), then packed as a
 * stream, so a big tree is never held in memory whole.
 */
import { createReadStream } from 'node:fs';
import { lstat, readdir, readlink } from 'node:fs/promises';
import { posix } from 'node:path';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import tar from 'tar-stream';
import { MAX_TAR_ID } from '../ssh/authorized-keys.ts';

export type DeployFailure =
  | 'bad-settings'
  | 'too-large'
  | 'not-deployable'
  | 'build-failed'
  | 'build-timeout'
  | 'after-update-failed'
  | 'after-update-timeout'
  | 'docker-failed'
  | 'swap-failed'
  | 'cancelled';

export class DeployError extends Error {
  constructor(
    readonly reason: DeployFailure,
    message: string,
    /** The build or after-update command's last output lines, when it failed. */
    readonly outputLines: string[] = [],
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'DeployError';
  }
}

export interface TreeOwner {
  uid: number;
  gid: number;
}

export interface TreeLimits {
  maxFiles: number;
  maxBytes: number;
}

export interface SkippedEntry {
  /** Relative to the checkout, with `/`. */
  path: string;
  reason: 'link-outside-tree' | 'special-file';
}

export type PlannedEntry =
  | { path: string; type: 'directory'; mode: number }
  | { path: string; type: 'file'; mode: number; size: number }
  | { path: string; type: 'symlink'; mode: number; target: string };

export interface TreePlan {
  entries: PlannedEntry[];
  /** Regular files. */
  files: number;
  /** Bytes of regular files. */
  bytes: number;
  skipped: SkippedEntry[];
}

/** True when a relative link at `linkPath` (relative to the tree) pointing at `target` stays inside the tree. */
export function linkStaysInside(linkPath: string, target: string): boolean {
  if (target === '' || target.startsWith('/')) return false;
  const resolved = posix.normalize(posix.join(posix.dirname(linkPath), target));
  return resolved !== '..' && !resolved.startsWith('../') && !posix.isAbsolute(resolved);
}

/** Files keep an execute bit when they had one; nothing is writable by others or setuid. */
function fileMode(mode: number): number {
  return mode & 0o111 ? 0o755 : 0o644;
}

/** Walks the checkout (without its top-level `.git`) and checks the caps; nothing is read yet. */
export async function planTree(root: string, limits: TreeLimits): Promise<TreePlan> {
  const plan: TreePlan = { entries: [], files: 0, bytes: 0, skipped: [] };
  const walk = async (relative: string): Promise<void> => {
    const names = (await readdir(join(root, relative))).sort();
    for (const name of names) {
      if (relative === '' && name === '.git') continue;
      const path = relative === '' ? name : `${relative}/${name}`;
      const info = await lstat(join(root, path));
      if (info.isDirectory()) {
        plan.entries.push({ path, type: 'directory', mode: 0o755 });
        await walk(path);
      } else if (info.isFile()) {
        plan.files += 1;
        plan.bytes += info.size;
        if (plan.files > limits.maxFiles) throw new DeployError('too-large', `the repository has more than ${limits.maxFiles} files`);
        if (plan.bytes > limits.maxBytes) throw new DeployError('too-large', `the repository's files are larger than ${limits.maxBytes} bytes`);
        plan.entries.push({ path, type: 'file', mode: fileMode(info.mode), size: info.size });
      } else if (info.isSymbolicLink()) {
        const target = await readlink(join(root, path));
        if (linkStaysInside(path, target)) plan.entries.push({ path, type: 'symlink', mode: 0o777, target });
        else plan.skipped.push({ path, reason: 'link-outside-tree' });
      } else {
        plan.skipped.push({ path, reason: 'special-file' });
      }
    }
  };
  await walk('');
  return plan;
}

/**
 * The tar stream of a plan: every entry under `folder/` (the staging folder's name, itself an
 * entry), owned by `owner`. A file that changed size since the walk fails the stream.
 */
export function packTree(root: string, plan: TreePlan, folder: string, owner: TreeOwner, mtime = new Date()): Readable {
  for (const [what, id] of [['uid', owner.uid], ['gid', owner.gid]] as const) {
    if (!Number.isInteger(id) || id < 0 || id > MAX_TAR_ID) throw new DeployError('not-deployable', `${what} ${id} does not fit in a tar header (at most ${MAX_TAR_ID})`);
  }
  if (!/^[A-Za-z0-9._-]+$/.test(folder)) throw new DeployError('bad-settings', `bad staging folder name ${folder}`);
  const pack = tar.pack();
  const base = { uid: owner.uid, gid: owner.gid, mtime };
  void (async () => {
    pack.entry({ ...base, name: `${folder}/`, type: 'directory', mode: 0o755 });
    for (const entry of plan.entries) {
      const name = `${folder}/${entry.path}`;
      if (entry.type === 'directory') pack.entry({ ...base, name: `${name}/`, type: 'directory', mode: entry.mode });
      else if (entry.type === 'symlink') pack.entry({ ...base, name, type: 'symlink', linkname: entry.target, mode: entry.mode });
      else {
        await new Promise<void>((resolve, reject) => {
          const sink = pack.entry({ ...base, name, type: 'file', mode: entry.mode, size: entry.size }, (error) => (error ? reject(error) : resolve()));
          const source = createReadStream(join(root, entry.path));
          source.once('error', reject);
          source.pipe(sink);
        });
      }
    }
    pack.finalize();
  })().catch((error: unknown) => pack.destroy(error instanceof Error ? error : new Error(String(error))));
  return pack;
}

/** A web root the deployer accepts: absolute, normalized, not `/`, no `.`/`..`, plain characters. */
export function checkWebRoot(webRoot: string): string {
  const clean = webRoot.replace(/\/+$/, '');
  if (!clean.startsWith('/') || clean === '' || !/^[A-Za-z0-9._/-]+$/.test(clean) || clean.split('/').slice(1).some((part) => part === '' || part === '.' || part === '..')) {
    throw new DeployError('bad-settings', `web root ${JSON.stringify(webRoot)} is not an absolute folder path`);
  }
  return clean;
}

/** A keep path checked again here: relative, no `.`/`..` parts, no empty parts, one line. */
export function checkKeepPath(path: string): string {
  const clean = path.replace(/\/+$/, '');
  if (clean === '' || clean.startsWith('/') || /[\0\r\n]/.test(clean) || clean.split('/').some((part) => part === '' || part === '.' || part === '..')) {
    throw new DeployError('bad-settings', `keep path ${JSON.stringify(path)} is not a relative path inside the web root`);
  }
  return clean;
}
