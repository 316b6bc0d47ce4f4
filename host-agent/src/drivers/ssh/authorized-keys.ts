import { buffer } from 'node:stream/consumers';
import tar from 'tar-stream';
import { type ContainerAccount, MAX_TAR_ID } from '../docker/container-files.ts';

/** One member's public key as the container's `authorized_keys` gets it. */
export interface AuthorizedKeyLine {
  /** "<type> <base64> [comment]" as the control plane validated it. */
  publicKey: string;
  userId: number;
}

/**
 * Name the new file is written under before it is hard-linked over `authorized_keys` (see
 * authorizedKeysArchive). Hidden, in the same folder, and belongs to the same user.
 */
export const STAGED_KEYS_NAME = '.authorized_keys.devplein';

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
export function authorizedKeysArchive(account: Pick<ContainerAccount, 'uid' | 'gid'>, text: string, mtime = new Date()): Promise<Buffer> {
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
