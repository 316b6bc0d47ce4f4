import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import tar from 'tar-stream';

/** Login name inside every SSH-enabled project container. */
export const SSH_USER = 'student';

/** One member's public key as the container's `authorized_keys` gets it. */
export interface AuthorizedKeyLine {
  /** "<type> <base64> [comment]" as the control plane validated it. */
  publicKey: string;
  userId: number;
}

/** The container user the keys belong to, from the image's /etc/passwd. */
export interface SshAccount {
  uid: number;
  gid: number;
  /** Absolute path of the home folder; `.ssh` goes inside it. */
  home: string;
}

/**
 * Name the new file is written under before it is hard-linked over `authorized_keys` (see
 * authorizedKeysArchive). Hidden, in the same folder, and belongs to the same user.
 */
export const STAGED_KEYS_NAME = '.authorized_keys.devplein';

/** The largest uid/gid a ustar header holds (6 octal digits). */
export const MAX_TAR_ID = 0o777777;

/** Single-line keys only: a newline inside a key would smuggle in a second entry or options. */
function keyLine(key: AuthorizedKeyLine): string {
  const [type, body] = key.publicKey.trim().split(/\s+/);
  if (!type || !body || /[\r\n]/.test(key.publicKey)) throw new Error(`malformed public key of user ${key.userId}`);
  return `${type} ${body} devplein-user-${key.userId}`;
}

/** The authorized_keys text: one line per key with our own comment; empty (no login) for none. */
export function authorizedKeysText(keys: AuthorizedKeyLine[]): string {
  const lines = keys.map(keyLine);
  return lines.length ? `${lines.join('\n')}\n` : '';
}

/** Key lines in an authorized_keys text (blank lines and comments do not count). */
export function countKeyLines(text: string): number {
  return keyLinesOf(text).length;
}

/** A line of an authorized_keys file as it is now; `userId` from our comment, undefined on a line we did not write. */
export interface PresentKeyLine {
  publicKey: string;
  userId: number | undefined;
}

/** The key lines of an authorized_keys text (blank lines and # comments left out). */
export function keyLinesOf(text: string): PresentKeyLine[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const owner = /\sdevplein-user-(\d+)$/.exec(line);
      return { publicKey: line, userId: owner ? Number(owner[1]) : undefined };
    });
}

/**
 * The uid, gid and home of `user` in a passwd file, or undefined when it has no usable entry
 * (missing, ids that are not numbers or above MAX_TAR_ID, a relative home or one with `..`:
 * keys are never written there).
 */
export function passwdEntry(passwd: string, user: string): SshAccount | undefined {
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

/**
 * The tar Docker's putArchive extracts into the user's home folder: `.ssh/` (0700), the keys
 * staged under STAGED_KEYS_NAME (0600), then `authorized_keys` as a hard link to that file,
 * all owned by the user (OpenSSH and dropbear accept key files only of root or the user).
 *
 * Why the hard link: Docker writes an existing name by removing it and writing a new file, so
 * an SSH server reading `authorized_keys` meanwhile could see it half written. The staged name
 * takes that; `authorized_keys` keeps the old complete file until Docker replaces it by one
 * unlink plus one link of the finished file. sshd sees the old keys, the new keys, or for that
 * instant no file (that one login is refused), never part of a file. No program in the image
 * is run, so it works the same on created, stopped, paused and running containers.
 */
export function authorizedKeysArchive(account: Pick<SshAccount, 'uid' | 'gid'>, text: string, mtime = new Date()): Promise<Buffer> {
  // tar-stream writes ids as 6 octal digits and silently caps bigger ones: a wrong owner.
  for (const [what, id] of [['uid', account.uid], ['gid', account.gid]] as const) {
    if (!Number.isInteger(id) || id < 0 || id > MAX_TAR_ID) return Promise.reject(new Error(`${what} ${id} does not fit in a tar header (at most ${MAX_TAR_ID})`));
  }
  const owner = { uid: account.uid, gid: account.gid, mtime };
  const pack = tar.pack();
  pack.entry({ ...owner, name: '.ssh/', type: 'directory', mode: 0o700 });
  pack.entry({ ...owner, name: `.ssh/${STAGED_KEYS_NAME}`, type: 'file', mode: 0o600 }, Buffer.from(text, 'utf8'));
  pack.entry({ ...owner, name: '.ssh/authorized_keys', type: 'link', linkname: `.ssh/${STAGED_KEYS_NAME}`, mode: 0o600 });
  pack.finalize();
  return buffer(pack);
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
