import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { BACKUP_NOT_INCLUDED } from '@devplein/contract/backups';
import { migrationNames } from '../db/migration-source.ts';
import { createKnex, migrate } from '../db/knex.ts';
import { copyServerConfig, encryptionKeyIn, placeRestoredConfig, serverConfigDir } from './server-config.ts';
import { archiveName, isEmptyDir, measure, type BackupManifest, type OpenedArchive, replaceDir, runTool, sealArchive } from './archive.ts';

/*
 * The control plane's part of a backup: PostgreSQL (pg_dump's custom format: every table, the
 * thumbnails — they are rows of `thumbnails`, not files —, the audit log, sessions, sequences)
 * and the uploaded course files (DATA_DIR/course-files).
 */

/** What the admin status page and the docs say is NOT in a backup (@devplein/contract/backups). */
export const NOT_INCLUDED: readonly string[] = BACKUP_NOT_INCLUDED['control-plane'];

const COURSE_FILES = 'course-files';

export interface ControlPlaneTarget {
  /** postgres:// URL (DATABASE_URL). */
  databaseUrl: string;
  /** DATA_DIR: the course files are in its course-files/ folder. */
  dataDir: string;
}

/** pg_dump/pg_restore get the password through the environment, not on their command line (ps shows that). */
function pgConnection(databaseUrl: string): { url: string; env: NodeJS.ProcessEnv } {
  const url = new URL(databaseUrl);
  const password = decodeURIComponent(url.password);
  url.password = '';
  return { url: url.toString(), env: { ...process.env, ...(password ? { PGPASSWORD: password } : {}) } };
}

/** Makes the control plane's archive in `backupDir`; returns its path and size. */
export async function backupControlPlane(target: ControlPlaneTarget, options: { backupDir: string; key: Buffer; version: string; now?: Date }): Promise<{ archive: string; bytes: number; manifest: BackupManifest }> {
  const now = options.now ?? new Date();
  await mkdir(options.backupDir, { recursive: true, mode: 0o700 });
  const staging = await mkdtemp(path.join(options.backupDir, '.staging-'));
  try {
    const { url, env } = pgConnection(target.databaseUrl);
    await runTool('pg_dump', ['--format=custom', '--no-owner', '--no-privileges', `--file=${path.join(staging, 'database.pgdump')}`, `--dbname=${url}`], { env });
    const lastMigration = await readLastMigration(target.databaseUrl);
    const files = path.join(staging, 'files', COURSE_FILES);
    await mkdir(files, { recursive: true });
    const source = path.join(target.dataDir, COURSE_FILES);
    if (!(await isEmptyDir(source))) await runTool('sh', ['-c', 'tar -C "$1" -cf - . | tar -C "$2" -xf -', 'copy', source, files]);
    const config = path.join(staging, 'config');
    await mkdir(config);
    await copyServerConfig(serverConfigDir(), config);
    const dump = await stat(path.join(staging, 'database.pgdump'));
    const manifest: BackupManifest = {
      format: 1,
      role: 'control-plane',
      devplein_version: options.version,
      last_migration: lastMigration,
      created_at: now.toISOString(),
      host: os.hostname(),
      included: [
        'PostgreSQL: alle tabellen (gebruikers, groepen, projecten, databases, VPN, licenties, levels, thumbnails, sessies, auditlog) als pg_dump',
        `cursusbestanden (${COURSE_FILES}/ in DATA_DIR)`,
        `instellingen en geheimen uit ${serverConfigDir()} (env-bestanden met ENCRYPTION_KEY, certificaten), zonder de backupsleutel`,
      ],
      not_included: [...NOT_INCLUDED],
      contents: [
        { path: 'database.pgdump', files: 1, bytes: dump.size },
        { path: `files/${COURSE_FILES}`, ...(await measure(files)) },
        { path: 'config', ...(await measure(config)) },
      ],
    };
    const archive = path.join(options.backupDir, archiveName('control-plane', now));
    const bytes = await sealArchive(staging, manifest, archive, options.key);
    return { archive, bytes, manifest };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

async function readLastMigration(databaseUrl: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const result = await client.query<{ name: string }>("select name from knex_migrations order by id desc limit 1").catch(() => ({ rows: [] }));
    return result.rows[0]?.name ?? null;
  } finally {
    await client.end();
  }
}

/** Tables (and other relations) in the database's own schemas: 0 is an empty database. */
export async function countUserTables(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const result = await client.query<{ count: string }>(
      "select count(*) from information_schema.tables where table_schema not in ('pg_catalog', 'information_schema')",
    );
    return Number(result.rows[0]?.count ?? 0);
  } finally {
    await client.end();
  }
}

/** Why a restore was refused before anything changed. */
export class RestoreRefused extends Error {
  override name = 'RestoreRefused';
}

/**
 * Restores an opened (decrypted, verified) control-plane archive onto `target`. Checks first:
 * the database must have no tables and the course files folder must be empty, unless `force`
 * (then both are replaced). The dump goes in in one transaction (all or nothing), then the
 * files, then the migrations newer than the archive run.
 */
export async function restoreControlPlane(
  opened: OpenedArchive,
  target: ControlPlaneTarget,
  options: { force: boolean },
): Promise<{ migrated: string[]; config: string | undefined; encryptionKeyDiffers: boolean }> {
  if (opened.manifest.role !== 'control-plane') throw new RestoreRefused(`Dit is een backup van de rol ${opened.manifest.role}, niet van de control plane: gebruik --role ${opened.manifest.role}.`);
  if (opened.manifest.last_migration !== null && !migrationNames.includes(opened.manifest.last_migration)) {
    throw new RestoreRefused(`De backup komt van een nieuwere devplein (migratie ${opened.manifest.last_migration} kent deze versie niet): herstel met versie ${opened.manifest.devplein_version} of nieuwer.`);
  }
  const courseFiles = path.join(target.dataDir, COURSE_FILES);
  if (!options.force) {
    const tables = await countUserTables(target.databaseUrl);
    if (tables > 0) throw new RestoreRefused(`De database is niet leeg (${tables} tabellen). Herstel gaat naar een lege server; --force vervangt de huidige gegevens.`);
    if (!(await isEmptyDir(courseFiles))) throw new RestoreRefused(`${courseFiles} is niet leeg. Herstel gaat naar een lege server; --force vervangt de huidige bestanden.`);
  }
  const { url, env } = pgConnection(target.databaseUrl);
  await runTool(
    'pg_restore',
    ['--single-transaction', '--exit-on-error', '--no-owner', '--no-privileges', ...(options.force ? ['--clean', '--if-exists'] : []), `--dbname=${url}`, path.join(opened.dir, 'database.pgdump')],
    { env },
  );
  await replaceDir(path.join(opened.dir, 'files', COURSE_FILES), courseFiles);
  const configDir = serverConfigDir();
  const config = await placeRestoredConfig(path.join(opened.dir, 'config'), configDir, opened.manifest.created_at);
  const oldKey = config ? await encryptionKeyIn(path.join(config, 'control-plane.env')) : undefined;
  const currentKey = await encryptionKeyIn(path.join(configDir, 'control-plane.env'));
  const knex = createKnex({ databaseUrl: target.databaseUrl, dataDir: target.dataDir });
  try {
    return { migrated: await migrate(knex), config, encryptionKeyDiffers: oldKey !== undefined && oldKey !== currentKey };
  } finally {
    await knex.destroy();
  }
}
