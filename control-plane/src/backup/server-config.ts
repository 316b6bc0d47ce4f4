import { chmod, readFile } from 'node:fs/promises';
import path from 'node:path';
import { isEmptyDir, replaceDir, runTool } from './archive.ts';

/*
 * The server's settings and secrets (/etc/devplein: the env files with ENCRYPTION_KEY and the
 * service passwords, the link's certificates) travel inside the archive, encrypted like the
 * rest: without the old ENCRYPTION_KEY a restored database's student passwords and VPN keys
 * cannot be read. The backup key itself is never copied (it would open its own archive). A
 * restore does not overwrite the new server's settings: it puts the old ones beside them in
 * /etc/devplein/from-backup-{time}/ (root only) and says what to take over.
 */

export const BACKUP_KEY_NAME = 'backup.key';

/** The folder with the services' env files: DEVPLEIN_CONFIG_DIR or /etc/devplein. */
export function serverConfigDir(): string {
  return process.env.DEVPLEIN_CONFIG_DIR || '/etc/devplein';
}

/** Copies the settings folder into `target` (made by the caller), without the backup key and earlier restored copies. */
export async function copyServerConfig(source: string, target: string): Promise<boolean> {
  if (await isEmptyDir(source)) return false;
  await runTool('sh', ['-c', 'tar -C "$1" --exclude="./$3" --exclude="./from-backup-*" -cf - . | tar -C "$2" -xf -', 'copy', source, target, BACKUP_KEY_NAME]);
  return true;
}

/** Puts the archived settings in `{configDir}/from-backup-{stamp}`; returns that folder, or undefined when the archive had none. */
export async function placeRestoredConfig(archived: string, configDir: string, createdAt: string): Promise<string | undefined> {
  if (await isEmptyDir(archived)) return undefined;
  const target = path.join(configDir, `from-backup-${createdAt.replace(/[:.]/g, '-')}`);
  await replaceDir(archived, target);
  await chmod(target, 0o700);
  return target;
}

/** ENCRYPTION_KEY of a control-plane.env, if the file and the line are there. */
export async function encryptionKeyIn(envFile: string): Promise<string | undefined> {
  const text = await readFile(envFile, 'utf8').catch(() => undefined);
  const line = text?.split('\n').find((entry) => entry.startsWith('ENCRYPTION_KEY='));
  return line?.slice('ENCRYPTION_KEY='.length).trim().replace(/^"(.*)"$/, '$1');
}
