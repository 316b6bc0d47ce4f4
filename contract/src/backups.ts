/**
 * What a devplein backup does NOT hold, in the words the admin status page, the archive's
 * manifest and `devplein restore` use (docs/operations.md, Backups, says the same).
 */
const CONTAINER_FILES = 'bestanden in de containers van studenten (uploads van hun sites, code die met SSH/SFTP is gekopieerd)';
const IMAGES_AND_CONTAINERS = 'de Docker-images en de containers zelf (studenten of een beheerder maken ze opnieuw)';
const BACKUP_KEY = 'de backupsleutel zelf (/etc/devplein/backup.key): bewaar die apart, offline';

/** Per role of the archive; `all` is what the status page lists once for the whole installation. */
export const BACKUP_NOT_INCLUDED = {
  'control-plane': [CONTAINER_FILES, IMAGES_AND_CONTAINERS, BACKUP_KEY],
  agent: [CONTAINER_FILES, IMAGES_AND_CONTAINERS, "andere MariaDB-databases dan die van studenten (u{id}_{naam}), zoals die van phpMyAdmin", BACKUP_KEY],
  all: [CONTAINER_FILES, IMAGES_AND_CONTAINERS, "andere MariaDB-databases dan die van studenten (u{id}_{naam}), zoals die van phpMyAdmin", BACKUP_KEY],
} as const satisfies Record<string, readonly string[]>;
