import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import tar from 'tar-stream';
import { engineMessage, engineStatus } from './docker-errors.ts';
import type { EngineContainer } from './engine.ts';

/**
 * Files inside a container, read and written through the engine's archives (no program in the
 * image is run): the passwd entry of the student's user, the tar entries of an archive, a single
 * file. Used by the SSH keys (drivers/ssh) and the git deploys (drivers/deploy) alike.
 */

/** The student's user in every project image: the SSH login, and the owner of a deployed site's files. */
export const SSH_USER = 'student';

/** A user of the container's image (the SSH login, the owner of a deployed site), from its /etc/passwd. */
export interface ContainerAccount {
  uid: number;
  gid: number;
  /** Absolute path of the home folder; `.ssh` goes inside it. */
  home: string;
}

/** The largest uid/gid a ustar header holds (6 octal digits). */
export const MAX_TAR_ID = 0o777777;

/**
 * A 404 for a path, not for the container: Docker says "Could not find the file ..." (dockerode
 * puts its own "no such container" text before every 404, so that cannot tell them apart).
 */
export function isMissingPath(error: unknown): boolean {
  const text = `${engineMessage(error)} ${error instanceof Error ? error.message : ''}`;
  return engineStatus(error) === 404 && /could not find the file|no such file or directory/i.test(text);
}

/**
 * The uid, gid and home of `user` in a passwd file, or undefined when it has no usable entry
 * (missing, ids that are not numbers or above MAX_TAR_ID, a relative home or one with `..`:
 * keys are never written there).
 */
export function passwdEntry(passwd: string, user: string): ContainerAccount | undefined {
  for (const line of passwd.split('\n')) {
    const fields = line.split(':');
    if (fields.length < 7 || fields[0] !== user) continue;
    const [, , uidText = '', gidText = '', , home = ''] = fields;
    if (!/^\d{1,10}$/.test(uidText) || !/^\d{1,10}$/.test(gidText)) return undefined;
    const uid = Number(uidText);
    const gid = Number(gidText);
    if (uid > MAX_TAR_ID || gid > MAX_TAR_ID) return undefined;
    const clean = home.replace(/\/+$/, '');
    if (!clean.startsWith('/') || clean.split('/').some((part) => part === '..' || part === '.')) return undefined;
    return { uid, gid, home: clean };
  }
  return undefined;
}

/** One entry of a tar as tarEntries reads it. */
export interface TarEntry {
  name: string;
  type: string;
  mode: number;
  uid: number;
  gid: number;
  linkname: string;
  /** The file's bytes (empty for anything but a regular file). */
  data: Buffer;
}

/**
 * The entries of a tar stream (Docker's getArchive answer). Stops with an error when a file is
 * bigger than `maxFileBytes`: an image can put anything at /etc/passwd.
 */
export function tarEntries(source: Readable, maxFileBytes = 1024 * 1024): Promise<TarEntry[]> {
  return new Promise((resolve, reject) => {
    const entries: TarEntry[] = [];
    const extract = tar.extract();
    const fail = (error: Error) => {
      source.destroy();
      extract.destroy();
      reject(error);
    };
    extract.on('entry', (header: tar.Headers, body: Readable, next: (error?: unknown) => void) => {
      if ((header.size ?? 0) > maxFileBytes) return fail(new Error(`${header.name} is larger than ${maxFileBytes} bytes`));
      buffer(body).then(
        (data) => {
          entries.push({
            name: header.name,
            type: header.type ?? 'file',
            // Permission bits only: Docker's archives also carry the file type in the mode.
            mode: (header.mode ?? 0) & 0o7777,
            uid: header.uid ?? 0,
            gid: header.gid ?? 0,
            linkname: header.linkname ?? '',
            data,
          });
          next();
        },
        (error: Error) => fail(error),
      );
    });
    extract.once('finish', () => resolve(entries));
    extract.once('error', fail);
    source.once('error', fail);
    source.pipe(extract);
  });
}

/**
 * The entry at `path` in the container (its first tar entry), or undefined when the path does
 * not exist. The engine's other refusals go through `wordEngineError` (each caller words them
 * for its own service); a file over tarEntries' limit fails as it does there.
 */
export async function readContainerEntry(container: EngineContainer, path: string, wordEngineError: (error: unknown) => unknown): Promise<TarEntry | undefined> {
  let stream: Readable;
  try {
    stream = await container.getArchive(path);
  } catch (error) {
    if (isMissingPath(error)) return undefined;
    throw wordEngineError(error);
  }
  const [entry] = await tarEntries(stream);
  return entry;
}
