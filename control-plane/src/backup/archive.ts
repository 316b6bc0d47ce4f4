import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { chown, lstat, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import { BackupArchiveError, decryptToFile, encryptToFile } from './archive-cipher.ts';

/*
 * The archive itself: a plain tar of a staging folder (manifest.json first, then what the role
 * put there), encrypted as one stream by archive-cipher.ts. System tar (Debian's GNU tar, always
 * there) rather than an npm tar package: none is a direct dependency, and tar keeps modes,
 * symlinks and empty folders exactly as the host has them.
 */

export type BackupRole = 'control-plane' | 'agent';

/** manifest.json at the root of every archive: what it is and what it holds, readable after decryption. */
export const manifestSchema = z.object({
  format: z.literal(1),
  role: z.enum(['control-plane', 'agent']),
  /** The devplein release that made it (the bundle's VERSION), or 'development'. */
  devplein_version: z.string(),
  /** The newest database migration at backup time (control plane): a restore migrates from there. */
  last_migration: z.string().nullable(),
  created_at: z.string(),
  host: z.string(),
  included: z.array(z.string()),
  not_included: z.array(z.string()),
  /** Per part of the archive: files and bytes (and, for databases, one entry per dump). */
  contents: z.array(z.object({ path: z.string(), files: z.number().int(), bytes: z.number().int() })),
});
export type BackupManifest = z.infer<typeof manifestSchema>;

/** Runs a program; resolves with its stdout, or rejects naming the program and its stderr's last lines. */
export function runTool(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; stdoutFile?: string; stdinFile?: string } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: options.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    if (!options.stdinFile) child.stdin.end();
    let stdout = '';
    let stderr = '';
    const done: Promise<unknown>[] = [];
    if (options.stdoutFile) done.push(pipeline(child.stdout, createWriteStream(options.stdoutFile, { mode: 0o600 })));
    else child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    if (options.stdinFile) done.push(pipeline(createReadStream(options.stdinFile), child.stdin));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(new Error(error.code === 'ENOENT' ? `${command} niet gevonden: installeer het (zie docs/operations.md, Backups).` : `${command}: ${error.message}`)),
    );
    child.on('close', (code) => {
      void Promise.allSettled(done).then((results) => {
        const failed = results.find((result) => result.status === 'rejected');
        if (code === 0 && !failed) resolve(stdout);
        else reject(new Error(`${path.basename(command)} mislukt (code ${code}): ${stderr.trim().split('\n').slice(-5).join(' | ') || (failed as PromiseRejectedResult | undefined)?.reason}`));
      });
    });
  });
}

/** Files and bytes under `dir` (regular files only; symlinks are counted as files of size 0). */
export async function measure(dir: string): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isDirectory()) continue;
    files += 1;
    if (entry.isFile()) bytes += (await stat(path.join(entry.parentPath, entry.name))).size;
  }
  return { files, bytes };
}

/** Writes manifest.json into `staging`, tars and encrypts it into `target` (atomically: a .partial file renamed). */
export async function sealArchive(staging: string, manifest: BackupManifest, target: string, key: Buffer): Promise<number> {
  await writeFile(path.join(staging, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  const partial = `${target}.partial`;
  const tar = spawn('tar', ['--create', '--file=-', `--directory=${staging}`, 'manifest.json', ...(await readdir(staging)).filter((name) => name !== 'manifest.json')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  tar.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => tar.on('close', resolve));
  try {
    await encryptToFile(tar.stdout, partial, key);
    const code = await exited;
    if (code !== 0) throw new Error(`tar mislukt (code ${code}): ${stderr.trim()}`);
    await rename(partial, target);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  return (await stat(target)).size;
}

/** An archive decrypted, verified and unpacked into a private folder; `dispose` removes that folder. */
export interface OpenedArchive {
  dir: string;
  manifest: BackupManifest;
  dispose(): Promise<void>;
}

/**
 * Decrypts and verifies the whole archive, then unpacks it into a new folder under `workDir`.
 * Nothing outside that folder is touched: a wrong key or a damaged archive stops here.
 */
export async function openArchive(archive: string, key: Buffer, workDir = os.tmpdir()): Promise<OpenedArchive> {
  try {
    await stat(archive);
  } catch {
    throw new BackupArchiveError('not-an-archive', `Backup niet gevonden: ${archive}.`);
  }
  const dir = await mkdtemp(path.join(workDir, 'devplein-restore-'));
  const dispose = () => rm(dir, { recursive: true, force: true });
  try {
    const tarFile = path.join(dir, 'archive.tar');
    await decryptToFile(archive, tarFile, key);
    const unpacked = path.join(dir, 'contents');
    await mkdir(unpacked, { mode: 0o700 });
    await runTool('tar', ['--extract', `--file=${tarFile}`, `--directory=${unpacked}`, '--no-same-owner']);
    await rm(tarFile);
    let manifest: BackupManifest;
    try {
      manifest = manifestSchema.parse(JSON.parse(await readFile(path.join(unpacked, 'manifest.json'), 'utf8')));
    } catch (error) {
      throw new BackupArchiveError('not-an-archive', `${archive} heeft geen geldige manifest.json: ${(error as Error).message.split('\n')[0]}`);
    }
    return { dir: unpacked, manifest, dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}

/** True when `dir` does not exist or holds nothing. */
export async function isEmptyDir(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).length === 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
}

/**
 * Copies the folder `source` to `target` (replacing it) with tar, keeping modes and symlinks; as
 * root, every restored file then belongs to the owner of `target`'s parent folder (the service's
 * user, e.g. devplein or devplein-agent), not to whoever made the backup.
 */
export async function replaceDir(source: string, target: string): Promise<void> {
  const parent = path.dirname(target);
  await mkdir(parent, { recursive: true });
  const staging = await mkdtemp(path.join(parent, `.${path.basename(target)}-restore-`));
  try {
    await runTool('sh', ['-c', 'tar -C "$1" -cf - . | tar -C "$2" -xf - --no-same-owner', 'copy', source, staging]);
    if (process.getuid?.() === 0) {
      const owner = await stat(parent);
      await chownTree(staging, owner.uid, owner.gid);
    }
    await rm(target, { recursive: true, force: true });
    await rename(staging, target);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}

async function chownTree(dir: string, uid: number, gid: number): Promise<void> {
  await chown(dir, uid, gid);
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const file = path.join(entry.parentPath, entry.name);
    if ((await lstat(file)).isSymbolicLink()) continue;
    await chown(file, uid, gid);
  }
}

/** Archive file names: devplein-{role}-{UTC time}.backup, so they sort by age. */
export function archiveName(role: BackupRole, at: Date): string {
  return `devplein-${role}-${at.toISOString().replace(/[:.]/g, '-')}.backup`;
}

/**
 * Retention: keeps the newest `keep` archives of `role` in `dir` (by name, which sorts by time)
 * and removes the older ones; other files are never touched. Returns the removed names.
 */
export async function pruneArchives(dir: string, role: BackupRole, keep: number): Promise<string[]> {
  const pattern = new RegExp(`^devplein-${role}-\\d{4}-\\d{2}-\\d{2}T[0-9-]+Z\\.backup$`);
  const archives = (await readdir(dir)).filter((name) => pattern.test(name)).sort();
  const old = archives.slice(0, Math.max(0, archives.length - keep));
  for (const name of old) await rm(path.join(dir, name), { force: true });
  return old;
}
