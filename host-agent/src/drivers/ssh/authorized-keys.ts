import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** One member's public key as the container's `authorized_keys` gets it. */
export interface AuthorizedKeyLine {
  /** "<type> <base64> [comment]" as the control plane validated it. */
  publicKey: string;
  userId: number;
}

/**
 * The host folder bind-mounted read-only at /home/student/.ssh in a project's container. A
 * folder, not the file: the file is replaced by rename, and a bind-mounted file would keep
 * showing the old inode.
 */
export function authorizedKeysDir(dataDir: string, projectId: number): string {
  return join(dataDir, 'ssh', String(projectId));
}

/** Single-line keys only: a newline inside a key would smuggle in a second entry or options. */
function keyLine(key: AuthorizedKeyLine): string {
  const [type, body] = key.publicKey.trim().split(/\s+/);
  if (!type || !body || /[\r\n]/.test(key.publicKey)) throw new Error(`malformed public key of user ${key.userId}`);
  return `${type} ${body} devplein-user-${key.userId}`;
}

/** Replaces the project's authorized_keys atomically (write a temp file, then rename). */
export async function writeAuthorizedKeys(dataDir: string, projectId: number, keys: AuthorizedKeyLine[]): Promise<string> {
  const dir = authorizedKeysDir(dataDir, projectId);
  await mkdir(dir, { recursive: true, mode: 0o755 });
  const lines = keys.map(keyLine);
  const target = join(dir, 'authorized_keys');
  const temp = `${target}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(temp, lines.length ? `${lines.join('\n')}\n` : '', { mode: 0o644 });
  await rename(temp, target);
  return target;
}

/** Removes the project's folder (after its container is removed). */
export async function removeAuthorizedKeys(dataDir: string, projectId: number): Promise<void> {
  await rm(authorizedKeysDir(dataDir, projectId), { recursive: true, force: true });
}
