/**
 * The tar of a checkout's tree that the container deployer puts into a container (issue 23,
 * part 2): regular files and folders, owned by the container's web user, without `.git`.
 *
 * What is left out, and why (each one reported as a `SkippedEntry`):
 * - a symbolic link whose target is absolute or leaves the tree (`../..`): inside the container it
 *   would point at the container's own files (a way to serve /etc/passwd). Where a link leads is
 *   worked out the way the kernel will in the container: component by component against the
 *   walked tree itself, following the links it meets on the way (at most MAX_LINK_HOPS), so a
 *   chain such as `d1/d2/d3/l -> ../../..` plus `up -> d1/d2/d3/l/../../../..` (each harmless when
 *   read as text alone, `/` together) is caught. Links that stay inside the tree are kept as links;
 * - device files, FIFOs and sockets: a site has no use for them and git cannot make them anyway.
 * The walk is counted first (file-count and byte caps, before anything is read), then packed as a
 * stream, so a big tree is never held in memory whole.
 *
 * The checkout belongs to whoever runs git (the git runner's user), and it can change between the
 * walk and the copy. So the copy never trusts a path: each file is opened with O_NOFOLLOW (a file
 * swapped for a symlink fails to open) and O_NONBLOCK (a FIFO does not hang the deploy), and the
 * open descriptor must be the very file the walk saw (device, inode, size, a regular file); else
 * the deploy fails before one byte of it is read. That also covers a folder swapped for a link
 * (`css -> /var/lib/devplein-agent/deploy`): the file found through it is another inode. The walk
 * itself reads each folder through its open descriptor (`/proc/self/fd/<n>/<name>`, opened with
 * O_NOFOLLOW and checked against what lstat saw), so a folder swapped while it is walked is
 * refused too, and no counted inode lies outside the checkout. The checkout folder's own path
 * above it (the git runner's state folder) is trusted.
 */
import { type BigIntStats, constants, createReadStream } from 'node:fs';
import { type FileHandle, lstat, open, readdir, readlink } from 'node:fs/promises';
import { posix } from 'node:path';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import tar from 'tar-stream';
import { MAX_TAR_ID } from '../docker/container-files.ts';

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
  | { path: string; type: 'file'; mode: number; size: number; dev: bigint; ino: bigint }
  | { path: string; type: 'symlink'; mode: number; target: string };

export interface TreePlan {
  entries: PlannedEntry[];
  /** Regular files. */
  files: number;
  /** Bytes of regular files. */
  bytes: number;
  skipped: SkippedEntry[];
}

/** Links followed while resolving one link before it counts as a loop (the kernel's own limit). */
export const MAX_LINK_HOPS = 40;

/** What the walk found at a path of the tree (relative, with `/`). */
export type TreeNode = { type: 'directory' } | { type: 'file' } | { type: 'symlink'; target: string } | { type: 'other' };

/**
 * True when the link at `linkPath` ends inside the tree, resolved as the kernel resolves it:
 * component by component from the link's folder, each link met on the way (the last one too)
 * followed from its own folder, `..` at the tree's top refused, at most MAX_LINK_HOPS links.
 * A name the tree does not have is taken as a plain folder (it may be made later, by a build).
 */
export function linkResolvesInside(linkPath: string, tree: ReadonlyMap<string, TreeNode>, maxHops = MAX_LINK_HOPS): boolean {
  const first = tree.get(linkPath);
  if (first?.type !== 'symlink') return false;
  const at = posix.dirname(linkPath);
  const current = at === '.' ? [] : at.split('/');
  const pending = [first.target];
  let parts: string[] = [];
  let hops = 1;
  for (;;) {
    if (parts.length === 0) {
      const next = pending.pop();
      if (next === undefined) return true;
      if (next === '' || next.startsWith('/')) return false;
      parts = next.split('/');
    }
    const part = parts.shift()!;
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (current.length === 0) return false;
      current.pop();
      continue;
    }
    const node = tree.get([...current, part].join('/'));
    if (node?.type === 'symlink') {
      hops += 1;
      if (hops > maxHops) return false;
      // The rest of this path waits until the link's own target is resolved (from `current`).
      const rest = parts.filter((name) => name !== '');
      if (rest.length > 0) pending.push(rest.join('/'));
      pending.push(node.target);
      parts = [];
      continue;
    }
    current.push(part);
  }
}

/** Files keep an execute bit when they had one; nothing is writable by others or setuid. */
function fileMode(mode: number): number {
  return mode & 0o111 ? 0o755 : 0o644;
}

/** Walks the checkout (without its top-level `.git`) and checks the caps; nothing is read yet. */
export async function planTree(root: string, limits: TreeLimits, seams: { afterLstat?: (path: string) => Promise<void> } = {}): Promise<TreePlan> {
  const plan: TreePlan = { entries: [], files: 0, bytes: 0, skipped: [] };
  const tree = new Map<string, TreeNode>();
  /** In walk order; the links are decided once the whole tree is known. */
  const walked: Array<PlannedEntry | SkippedEntry> = [];
  /** One folder, read through its open descriptor (`/proc/self/fd/<n>`): a later swap of its path for a link changes nothing. */
  const walk = async (relative: string, folder: FileHandle): Promise<void> => {
    const at = `/proc/self/fd/${folder.fd}`;
    const names = (await readdir(at)).sort();
    for (const name of names) {
      if (relative === '' && name === '.git') continue;
      const path = relative === '' ? name : `${relative}/${name}`;
      const info = await lstat(`${at}/${name}`, { bigint: true });
      await seams.afterLstat?.(path);
      if (info.isDirectory()) {
        tree.set(path, { type: 'directory' });
        walked.push({ path, type: 'directory', mode: 0o755 });
        const child = await openFolder(`${at}/${name}`, path, info);
        try {
          await walk(path, child);
        } finally {
          await child.close();
        }
      } else if (info.isFile()) {
        const size = Number(info.size);
        plan.files += 1;
        plan.bytes += size;
        if (plan.files > limits.maxFiles) throw new DeployError('too-large', `the repository has more than ${limits.maxFiles} files`);
        if (plan.bytes > limits.maxBytes) throw new DeployError('too-large', `the repository's files are larger than ${limits.maxBytes} bytes`);
        tree.set(path, { type: 'file' });
        walked.push({ path, type: 'file', mode: fileMode(Number(info.mode)), size, dev: info.dev, ino: info.ino });
      } else if (info.isSymbolicLink()) {
        const target = await readlink(`${at}/${name}`);
        tree.set(path, { type: 'symlink', target });
        walked.push({ path, type: 'symlink', mode: 0o777, target });
      } else {
        tree.set(path, { type: 'other' });
        walked.push({ path, reason: 'special-file' });
      }
    }
  };
  const top = await openFolder(root, root, undefined);
  try {
    await walk('', top);
  } finally {
    await top.close();
  }
  for (const entry of walked) {
    if ('reason' in entry) plan.skipped.push(entry);
    else if (entry.type === 'symlink' && !linkResolvesInside(entry.path, tree)) plan.skipped.push({ path: entry.path, reason: 'link-outside-tree' });
    else plan.entries.push(entry);
  }
  return plan;
}

/**
 * Opens a folder of the walk without following a link at its last step; when the walk saw it
 * (`seen`), it must still be that folder (device and inode).
 */
async function openFolder(at: string, path: string, seen: BigIntStats | undefined): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(at, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (seen === undefined && code !== 'ELOOP') throw error;
    throw new DeployError('not-deployable', `${path} changed in the checkout during the deploy (${code === 'ELOOP' ? 'now a symbolic link' : (code ?? 'unreadable')}); nothing of it was copied`, [], { cause: error });
  }
  const info = await handle.stat({ bigint: true });
  if (seen !== undefined && (info.dev !== seen.dev || info.ino !== seen.ino)) {
    await handle.close();
    throw new DeployError('not-deployable', `${path} changed in the checkout during the deploy (another folder than the one seen); nothing of it was copied`);
  }
  return handle;
}

/**
 * Opens a planned file for the copy: no link followed at its last step, no wait on a FIFO, and
 * the descriptor must be the file the walk saw (else a DeployError, nothing read).
 */
async function openPlanned(root: string, entry: Extract<PlannedEntry, { type: 'file' }>): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(join(root, entry.path), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new DeployError('not-deployable', `${entry.path} changed in the checkout during the deploy (${code === 'ELOOP' ? 'now a symbolic link' : (code ?? 'unreadable')}); nothing of it was copied`, [], { cause: error });
  }
  const info = await handle.stat({ bigint: true }).catch(async (error: unknown) => {
    await handle.close();
    throw error;
  });
  if (!info.isFile() || info.dev !== entry.dev || info.ino !== entry.ino || Number(info.size) !== entry.size) {
    await handle.close();
    throw new DeployError('not-deployable', `${entry.path} changed in the checkout during the deploy (another file than the one counted); nothing of it was copied`);
  }
  return handle;
}

/**
 * The tar stream of a plan: every entry under `folder/` (the staging folder's name, itself an
 * entry), owned by `owner`. A file that is not the one the walk counted (replaced, swapped for a
 * link, or reached through a folder swapped for a link) or that changed size fails the stream
 * with a DeployError before it is read.
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
        const handle = await openPlanned(root, entry);
        await new Promise<void>((resolve, reject) => {
          const sink = pack.entry({ ...base, name, type: 'file', mode: entry.mode, size: entry.size }, (error) => (error ? reject(error) : resolve()));
          if (entry.size === 0) {
            void handle.close();
            sink.end();
            return;
          }
          // The stream owns (and closes) the descriptor; it reads the counted bytes, no more.
          const source = createReadStream('', { fd: handle, start: 0, end: entry.size - 1 });
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
