import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../atomic-file.ts';

/**
 * Containers made before the keys went in through the Docker API have a host folder
 * (AGENT_DATA_DIR/ssh/{projectId}) bind-mounted read-only at /home/student/.ssh. Docker cannot
 * take a mount off a container, so for those the agent keeps that folder up to date (their SSH
 * works while the agent runs as root, as before) until they are re-created; see
 * docs/operations.md, "SSH into containers".
 */

/** Where the old containers have their keys folder mounted. */
export const LEGACY_MOUNT_POINT = '/home/student/.ssh';

/** The host folder of a project (a folder, not the file: the file is replaced by rename). */
export function legacyKeysDir(dataDir: string, projectId: number): string {
  return join(dataDir, 'ssh', String(projectId));
}

/** Replaces the folder's authorized_keys atomically (write a temp file, then rename). */
export async function writeLegacyKeys(dataDir: string, projectId: number, text: string): Promise<void> {
  const dir = legacyKeysDir(dataDir, projectId);
  await mkdir(dir, { recursive: true, mode: 0o755 });
  await writeFileAtomic(join(dir, 'authorized_keys'), text, 0o644);
}

/** Removes the project's folder (after its container is removed); nothing when there is none. */
export async function removeLegacyKeys(dataDir: string, projectId: number): Promise<void> {
  await rm(legacyKeysDir(dataDir, projectId), { recursive: true, force: true });
}
