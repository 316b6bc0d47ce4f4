import { z } from 'zod';

/**
 * What a devplein backup does NOT hold, in the words the admin status page, the archive's
 * manifest and `devplein restore` use (docs/operations.md, Backups, says the same).
 */
const CONTAINER_FILES = 'bestanden in de containers van studenten (uploads van hun sites, code die met SSH/SFTP is gekopieerd)';
const IMAGES_AND_CONTAINERS = 'de Docker-images en de containers zelf (studenten of een beheerder maken ze opnieuw)';
const BACKUP_KEY = 'de backupsleutel zelf (/etc/devplein/backup.key): bewaar die apart, offline';
const GIT_CHECKOUTS = 'de opgehaalde repositories van git-deploys (de volgende deploy haalt ze opnieuw op; de deploy keys zitten er wel in)';

/** Per role of the archive; `all` is what the status page lists once for the whole installation. */
export const BACKUP_NOT_INCLUDED = {
  'control-plane': [CONTAINER_FILES, IMAGES_AND_CONTAINERS, BACKUP_KEY],
  agent: [CONTAINER_FILES, IMAGES_AND_CONTAINERS, "andere MariaDB-databases dan die van studenten (u{id}_{naam}), zoals die van phpMyAdmin", GIT_CHECKOUTS, BACKUP_KEY],
  all: [CONTAINER_FILES, IMAGES_AND_CONTAINERS, "andere MariaDB-databases dan die van studenten (u{id}_{naam}), zoals die van phpMyAdmin", GIT_CHECKOUTS, BACKUP_KEY],
} as const satisfies Record<string, readonly string[]>;

/**
 * The file `devplein backup --role agent` leaves in the agent's data dir (AGENT_DATA_DIR) after
 * every run, successful or not: the agent reads it for the status page (HostStats' LastBackup).
 * A dev server has no PostgreSQL of its own to record its runs in, and the backup (run as root)
 * may write there; the agent (its own user) reads it. Not part of the archive itself.
 */
export const AGENT_BACKUP_STATUS_FILE = 'backup-status.json';

export const agentBackupStatusSchema = z.object({
  finishedAt: z.iso.datetime(),
  ok: z.boolean(),
  sizeBytes: z.number().int().nonnegative().nullable(),
  message: z.string().max(2000),
  /**
   * When the last successful run finished: this run's end when it succeeded, else carried over
   * from the status before (null: none succeeded). Absent in files of older releases.
   */
  lastSuccessAt: z.iso.datetime().nullable().optional(),
});

export type AgentBackupStatus = z.infer<typeof agentBackupStatusSchema>;
