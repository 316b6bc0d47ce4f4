/**
 * Backups proven to restore (issue 21): `devplein backup` of a seeded, used instance, and
 * `devplein restore` onto FRESH services — a new PostgreSQL cluster with an empty database, a
 * new MariaDB server, empty data folders — then every table's rows (all columns), every student
 * database's rows and accounts, and every file's bytes compared. A restore with the wrong key, or
 * of a damaged archive, fails clearly and leaves the target exactly as it was (empty).
 * The figures (tables, rows, files, bytes, times) are printed for the lead; none is asserted.
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readdir, readFile, readlink, rm, lstat, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_BACKUP_STATUS_FILE, agentBackupStatusSchema } from '@devplein/contract/backups';
import { backupControlPlane } from '../../../control-plane/src/backup/control-plane-backup.ts';
import { readBackupKey } from '../../../control-plane/src/backup/archive-cipher.ts';
import { sealArchive } from '../../../control-plane/src/backup/archive.ts';
import { migrationNames, migrationSource } from '../../../control-plane/src/db/migration-source.ts';
import { seedDemoData } from '../../../control-plane/src/db/seed.ts';
import { latestBackupRun } from '../../../control-plane/src/queries/backups.ts';
import { runBackupCli } from '../../support/clients/backup-cli.ts';
import { createTestDatabase, type TestDatabase } from '../../support/services/database.ts';
import { fakePng } from '../../support/fakes/fake-agent.ts';
import { startMariaDb, type TestMariaDb } from '../../support/services/mariadb.ts';
import { startPostgres, type PostgresServer } from '../../support/services/postgres.ts';
import { findFreePort } from '../../support/clients/ports.ts';

const TIMEOUT = 180_000;

let work: string;
let keyFile: string;
let wrongKeyFile: string;

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'devplein-backup-test-'));
  keyFile = path.join(work, 'backup.key');
  wrongKeyFile = path.join(work, 'wrong.key');
  await writeFile(keyFile, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  await writeFile(wrongKeyFile, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
});

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

/** Every file under `dir`: relative path → sha256 and mode (a symlink → its target). */
async function fileHashes(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const file = path.join(entry.parentPath, entry.name);
    const relative = path.relative(dir, file);
    const info = await lstat(file);
    if (info.isSymbolicLink()) out[relative] = `-> ${await readlink(file)}`;
    else if (info.isFile()) out[relative] = `${createHash('sha256').update(await readFile(file)).digest('hex')} ${(info.mode & 0o777).toString(8)}`;
    else if (info.isDirectory()) out[`${relative}/`] = (info.mode & 0o777).toString(8);
  }
  return out;
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

function archiveIn(stdout: string): string {
  const match = /Backup gemaakt: (\S+\.backup)/.exec(stdout);
  if (!match?.[1]) throw new Error(`no archive named in: ${stdout}`);
  return match[1];
}

/** A copy of `archive` with one byte in the middle of the ciphertext changed. */
async function damagedCopy(archive: string): Promise<string> {
  const bytes = await readFile(archive);
  const middle = Math.floor(bytes.length / 2);
  bytes[middle] = bytes[middle]! ^ 0x01;
  const copy = path.join(work, `damaged-${path.basename(archive)}`);
  await writeFile(copy, bytes);
  return copy;
}

describe('control plane: devplein backup / restore', () => {
  let source: TestDatabase;
  let freshCluster: PostgresServer;
  let target: TestDatabase;
  const sourceDataDir = () => path.join(work, 'cp-source-data');
  const targetDataDir = () => path.join(work, 'cp-target-data');
  /** /etc/devplein of the old server and of the freshly installed one (each with its own ENCRYPTION_KEY). */
  const sourceConfig = () => path.join(work, 'cp-source-etc');
  const targetConfig = () => path.join(work, 'cp-target-etc');

  async function writeServerConfig(dir: string, encryptionKey: string, extra = ''): Promise<void> {
    await mkdir(path.join(dir, 'control-plane'), { recursive: true });
    await writeFile(path.join(dir, 'control-plane.env'), `# test\nENCRYPTION_KEY=${encryptionKey}\n${extra}`, { mode: 0o640 });
    await writeFile(path.join(dir, 'control-plane', 'control-plane-key.pem'), randomBytes(200).toString('base64'), { mode: 0o640 });
    await writeFile(path.join(dir, 'backup.key'), `${randomBytes(32).toString('base64')}\n`, { mode: 0o400 });
  }

  /** Every row of every table (all columns, as row_to_json text, sorted) and every sequence's position. */
  async function snapshot(url: string): Promise<{ tables: Record<string, string[]>; sequences: Record<string, string | null> }> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const tableNames = (
        await client.query<{ table_name: string }>("select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1")
      ).rows.map((row) => row.table_name);
      const tables: Record<string, string[]> = {};
      for (const table of tableNames) {
        const rows = await client.query<{ r: string }>(`select row_to_json(t)::text as r from "${table}" t`);
        tables[table] = rows.rows.map((row) => row.r).sort();
      }
      const sequences: Record<string, string | null> = {};
      for (const row of (await client.query<{ sequencename: string; last_value: string | null }>("select sequencename, last_value::text from pg_sequences where schemaname = 'public'")).rows) {
        sequences[row.sequencename] = row.last_value;
      }
      return { tables, sequences };
    } finally {
      await client.end();
    }
  }

  async function tableCount(url: string): Promise<number> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const result = await client.query<{ count: string }>("select count(*) from information_schema.tables where table_schema not in ('pg_catalog', 'information_schema')");
      return Number(result.rows[0]?.count);
    } finally {
      await client.end();
    }
  }

  /** A used instance: the demo seed plus thumbnails, audit entries, sessions, databases, VPN peers, course files and an earlier backup run. */
  async function seedUsedInstance(knex: Knex, dataDir: string): Promise<void> {
    await seedDemoData(knex);
    const projects = (await knex('projects').select('id', 'name').orderBy('id')) as Array<{ id: number; name: string }>;
    await knex('thumbnails').insert(projects.map((project, index) => ({ project_id: project.id, png: fakePng(project.name), etag: `"${index}"`, captured_at: new Date(Date.UTC(2026, 10, 1, 8, index)) })));
    const users = (await knex('users').select('id').orderBy('id')) as Array<{ id: number }>;
    await knex('audit_log').insert(
      Array.from({ length: 120 }, (_, index) => ({
        actor_id: users[index % users.length]!.id,
        action: ['project.approve', 'user.disable', 'container.start'][index % 3],
        subject_type: 'project',
        subject_id: String(projects[index % projects.length]!.id),
        before: { validated: null, n: index },
        after: { validated: true, note: `wijziging ${index} — é ü ✓` },
      })),
    );
    await knex('sessions').insert(users.slice(0, 5).map((user, index) => ({ id: `sess-${index}-${randomBytes(8).toString('hex')}`, user_id: user.id, data: { csrf: randomBytes(8).toString('hex') }, expires_at: new Date(Date.UTC(2030, 0, 1)) })));
    await knex('databases').insert(users.slice(1, 4).map((user, index) => ({ user_id: user.id, name: `u${user.id}_db${'abc'[index]}`, db_user: `u${user.id}_db${'abc'[index]}`, password_encrypted: randomBytes(24).toString('base64') })));
    await knex('vpn_configs').insert(users.slice(1, 4).map((user, index) => ({ user_id: user.id, address: `10.8.0.${index + 2}/32`, public_key: randomBytes(32).toString('base64'), private_key_encrypted: randomBytes(48).toString('base64') })));
    const courses = (await knex('courses').select('id').orderBy('id').limit(4)) as Array<{ id: number }>;
    const folder = path.join(dataDir, 'course-files');
    await mkdir(folder, { recursive: true });
    for (const [index, course] of courses.entries()) {
      const key = randomBytes(12).toString('hex');
      const data = randomBytes(20_000 * (index + 1));
      await writeFile(path.join(folder, key), data, { mode: 0o600 });
      await knex('course_files').insert({ course_id: course.id, title: `Bestand ${index}`, type: 'PDF', filename: `les-${index}.pdf`, storage_key: key, size: data.length, position: index });
    }
    await knex('backup_runs').insert({ started_at: new Date(Date.UTC(2026, 10, 26, 2)), finished_at: new Date(Date.UTC(2026, 10, 26, 2, 1)), ok: false, message: 'pg_dump mislukt (een eerdere nacht)' });
  }

  beforeAll(async () => {
    source = await createTestDatabase();
    await seedUsedInstance(source.knex, sourceDataDir());
    await writeServerConfig(sourceConfig(), randomBytes(32).toString('base64'));
    await writeServerConfig(targetConfig(), randomBytes(32).toString('base64'));
    // The restore goes to services that never saw this data: a PostgreSQL cluster of its own.
    freshCluster = await startPostgres();
    target = await createTestDatabase({ migrated: false, serverUrl: freshCluster.url });
  }, TIMEOUT);

  afterAll(async () => {
    await target?.destroy();
    await source?.destroy();
    await freshCluster?.stop();
  });

  it(
    'backs up a used instance, refuses the wrong key and a damaged archive without changing anything, restores every row and file onto fresh services',
    async () => {
      const before = await snapshot(source.url);
      const sourceFiles = await fileHashes(path.join(sourceDataDir(), 'course-files'));
      const backupDir = path.join(work, 'cp-backups');

      const made = await runBackupCli(['backup', '--dir', backupDir, '--key', keyFile, '--keep', '3'], { DATABASE_URL: source.url, DATA_DIR: sourceDataDir(), DEVPLEIN_CONFIG_DIR: sourceConfig() });
      expect(made, made.stderr).toMatchObject({ code: 0, stderr: '' });
      const archive = archiveIn(made.stdout);
      const archiveBytes = (await stat(archive)).size;
      // The run is recorded for the status page (after the dump, so the dump has the rows of before).
      const run = await latestBackupRun(source.knex);
      expect(run).toMatchObject({ ok: true, archive_path: archive, size_bytes: archiveBytes, role: 'control-plane' });
      // The key is not in the archive: its base64 text and its raw bytes appear nowhere in the file.
      const archiveData = await readFile(archive);
      const key = await readBackupKey(keyFile);
      expect(archiveData.includes(key)).toBe(false);
      expect(archiveData.includes(Buffer.from(key.toString('base64')))).toBe(false);

      // Wrong key: a clear message, exit 4, and the target is exactly as empty as before.
      const targetEnv = { DATABASE_URL: target.url, DATA_DIR: targetDataDir(), DEVPLEIN_CONFIG_DIR: targetConfig() };
      const targetConfigBefore = await fileHashes(targetConfig());
      const wrong = await runBackupCli(['restore', archive, '--key', wrongKeyFile], targetEnv);
      expect(wrong.code).toBe(4);
      expect(wrong.stderr).toContain('Verkeerde backupsleutel');
      expect(wrong.stderr).toContain('Er is niets veranderd');
      expect(await tableCount(target.url)).toBe(0);
      expect(await exists(targetDataDir())).toBe(false);
      expect(await fileHashes(targetConfig())).toEqual(targetConfigBefore);

      // A damaged archive (one bit flipped): decrypted in full and refused before anything changes.
      const damaged = await runBackupCli(['restore', await damagedCopy(archive), '--key', keyFile], targetEnv);
      expect(damaged.code).toBe(4);
      expect(damaged.stderr).toContain('beschadigd of gewijzigd');
      expect(await tableCount(target.url)).toBe(0);
      expect(await exists(targetDataDir())).toBe(false);
      expect(await fileHashes(targetConfig())).toEqual(targetConfigBefore);

      const restored = await runBackupCli(['restore', archive, '--key', keyFile], targetEnv);
      expect(restored, restored.stderr).toMatchObject({ code: 0, stderr: '' });
      expect(restored.stdout).toContain('Niet in de backup');
      // The old server's settings come back beside the new ones (root only), without the backup key; the differing ENCRYPTION_KEY is named.
      expect(restored.stdout).toContain('Let op: ENCRYPTION_KEY');
      const restoredConfig = (await readdir(targetConfig())).filter((name) => name.startsWith('from-backup-'));
      expect(restoredConfig).toHaveLength(1);
      const { 'backup.key': sourceKey, ...sourceConfigFiles } = await fileHashes(sourceConfig());
      expect(sourceKey).toBeDefined();
      expect(await fileHashes(path.join(targetConfig(), restoredConfig[0]!))).toEqual(sourceConfigFiles);
      expect(((await stat(path.join(targetConfig(), restoredConfig[0]!))).mode & 0o777).toString(8)).toBe('700');

      const after = await snapshot(target.url);
      expect(Object.keys(after.tables)).toEqual(Object.keys(before.tables));
      for (const table of Object.keys(before.tables)) expect(after.tables[table], table).toEqual(before.tables[table]);
      expect(after.sequences).toEqual(before.sequences);
      expect(await fileHashes(path.join(targetDataDir(), 'course-files'))).toEqual(sourceFiles);

      // A second restore onto the now filled target is refused and changes nothing.
      const again = await runBackupCli(['restore', archive, '--key', keyFile], targetEnv);
      expect(again.code).toBe(3);
      expect(again.stderr).toContain('De database is niet leeg');
      expect((await snapshot(target.url)).tables).toEqual(after.tables);

      // --force replaces what is there (here: a row added and a course file removed since) with the archive's.
      const extra = new pg.Client({ connectionString: target.url });
      await extra.connect();
      await extra.query("insert into groups (cohort) values ('SD99')");
      await extra.end();
      await rm(path.join(targetDataDir(), 'course-files', Object.keys(sourceFiles)[0]!));
      const forced = await runBackupCli(['restore', archive, '--key', keyFile, '--force'], targetEnv);
      expect(forced, forced.stderr).toMatchObject({ code: 0, stderr: '' });
      expect((await snapshot(target.url)).tables).toEqual(before.tables);
      expect(await fileHashes(path.join(targetDataDir(), 'course-files'))).toEqual(sourceFiles);

      const rows = Object.values(before.tables).reduce((sum, table) => sum + table.length, 0);
      const fileBytes = (await Promise.all(Object.keys(sourceFiles).map((file) => stat(path.join(sourceDataDir(), 'course-files', file))))).reduce((sum, info) => sum + info.size, 0);
      console.log(
        `[backup figures] control plane: ${Object.keys(before.tables).length} tables, ${rows} rows (audit_log ${before.tables.audit_log?.length}, thumbnails ${before.tables.thumbnails?.length}), ` +
          `${Object.keys(sourceFiles).length} course files (${fileBytes} bytes); archive ${archiveBytes} bytes; backup ${made.ms} ms, restore ${restored.ms} ms (child processes, tsx start included); all equal after restore`,
      );
    },
    TIMEOUT,
  );

  it(
    'an archive of an older version is restored and then migrated to this version',
    async () => {
      const old = await createTestDatabase();
      const oldTarget = await createTestDatabase({ migrated: false, serverUrl: freshCluster.url });
      try {
        // The database as the release before backup_runs left it: the demo data (the seed writes
        // today's schema), then every later migration undone, newest first.
        await seedDemoData(old.knex);
        const later = migrationNames.slice(migrationNames.indexOf('0013_backup_runs'));
        for (let undone = 0; undone < later.length; undone += 1) await old.knex.migrate.down({ migrationSource });
        expect(await old.knex.schema.hasTable('backup_runs')).toBe(false);
        const oldData = path.join(work, 'old-data');
        await mkdir(path.join(oldData, 'course-files'), { recursive: true });
        const made = await backupControlPlane({ databaseUrl: old.url, dataDir: oldData }, { backupDir: path.join(work, 'old-backups'), key: await readBackupKey(keyFile), version: 'older' });
        expect(made.manifest.last_migration).toBe('0012_site_wall_notices');

        const restored = await runBackupCli(['restore', made.archive, '--key', keyFile], { DATABASE_URL: oldTarget.url, DATA_DIR: path.join(work, 'old-target-data') });
        expect(restored, restored.stderr).toMatchObject({ code: 0, stderr: '' });
        expect(restored.stdout).toContain(`${later.length} migratie(s): ${later.join(', ')}`);
        expect(await oldTarget.knex.schema.hasTable('backup_runs')).toBe(true);
        expect(await oldTarget.knex('users').orderBy('id')).toEqual(await old.knex('users').orderBy('id'));
      } finally {
        await oldTarget.destroy();
        await old.destroy();
      }
    },
    TIMEOUT,
  );

  it('retention keeps the newest N archives of the role and nothing else is touched', async () => {
    const dir = path.join(work, 'retention');
    await mkdir(dir, { recursive: true });
    const names = ['2026-11-20T02-00-00-000Z', '2026-11-21T02-00-00-000Z', '2026-11-22T02-00-00-000Z', '2026-11-23T02-00-00-000Z'].map((at) => `devplein-control-plane-${at}.backup`);
    for (const name of [...names, 'devplein-agent-2026-11-01T02-00-00-000Z.backup', 'notes.txt']) await writeFile(path.join(dir, name), 'x');
    // Settings as the timer has them: DATABASE_URL and DATA_DIR only in {DEVPLEIN_CONFIG_DIR}/control-plane.env.
    const config = path.join(work, 'retention-etc');
    await writeServerConfig(config, randomBytes(32).toString('base64'), `DATABASE_URL=${source.url}\nDATA_DIR=${sourceDataDir()}\n`);
    const made = await runBackupCli(['backup', '--dir', dir, '--key', keyFile, '--keep', '2'], { DEVPLEIN_CONFIG_DIR: config });
    expect(made, made.stderr).toMatchObject({ code: 0 });
    expect(made.stdout).toContain('files/course-files: 4 bestand(en)');
    const left = (await readdir(dir)).sort();
    expect(left).toEqual(['devplein-agent-2026-11-01T02-00-00-000Z.backup', names[3], path.basename(archiveIn(made.stdout)), 'notes.txt'].sort());
  }, TIMEOUT);

  it('says what is wrong: no key file, a malformed key, no DATABASE_URL, a missing archive', async () => {
    const noKey = await runBackupCli(['backup', '--dir', path.join(work, 'x'), '--key', path.join(work, 'nope.key')], { DATABASE_URL: source.url });
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toContain('Backupsleutel niet gevonden');
    const badKeyFile = path.join(work, 'bad.key');
    await writeFile(badKeyFile, 'te kort\n');
    const badKey = await runBackupCli(['restore', path.join(work, 'x.backup'), '--key', badKeyFile], { DATABASE_URL: target.url });
    expect(badKey.code).toBe(4);
    expect(badKey.stderr).toContain('geen 32 bytes in base64');
    const noDatabase = await runBackupCli(['backup', '--dir', path.join(work, 'x'), '--key', keyFile], {});
    expect(noDatabase.code).toBe(3);
    expect(noDatabase.stderr).toContain('DATABASE_URL is niet ingesteld');
    const missing = await runBackupCli(['restore', path.join(work, 'nope.backup'), '--key', keyFile], { DATABASE_URL: target.url });
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain('Backup niet gevonden');
    const usage = await runBackupCli(['backup', '--keep', 'veel'], {});
    expect(usage.code).toBe(2);
    // A failed night is recorded too, with what went wrong, for the status page.
    const blocked = path.join(work, 'a-file');
    await writeFile(blocked, 'x');
    const failed = await runBackupCli(['backup', '--dir', path.join(blocked, 'backups'), '--key', keyFile], { DATABASE_URL: source.url, DATA_DIR: sourceDataDir() });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('Backup mislukt');
    const run = await latestBackupRun(source.knex);
    expect(run).toMatchObject({ ok: false, size_bytes: null, archive_path: null });
    expect(run?.message).toContain('ENOTDIR');
  }, TIMEOUT);
});

describe('agent: devplein backup --role agent / restore', () => {
  let sourceDb: TestMariaDb;
  let freshDb: TestMariaDb;
  const studentDatabases = ['u11_abc', 'u12_web', 'u13_x'];

  async function query<T>(connection: mysql.Connection, sql: string, values: unknown[] = []): Promise<T[]> {
    const [rows] = await connection.query(sql, values);
    return rows as T[];
  }

  /** Every student database's tables, each table's rows (all columns, JSON with blobs in hex, sorted); the accounts' grants. */
  async function studentSnapshot(server: TestMariaDb): Promise<{ databases: Record<string, Record<string, string[]>>; grants: Record<string, string[]> }> {
    const root = await server.root();
    try {
      const databases: Record<string, Record<string, string[]>> = {};
      const names = (await query<{ Database: string }>(root, 'SHOW DATABASES')).map((row) => row.Database).filter((name) => /^u\d+_[a-z]+$/.test(name)).sort();
      for (const name of names) {
        databases[name] = {};
        const tables = (await query<{ TABLE_NAME: string }>(root, 'SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? ORDER BY 1', [name])).map((row) => row.TABLE_NAME);
        for (const table of tables) {
          const rows = await query<Record<string, unknown>>(root, `SELECT * FROM \`${name}\`.\`${table}\``);
          databases[name][table] = rows.map((row) => JSON.stringify(row, (_key, value: unknown) => (Buffer.isBuffer(value) ? value.toString('hex') : value))).sort();
        }
      }
      const grants: Record<string, string[]> = {};
      for (const account of await query<{ User: string; Host: string }>(root, "SELECT User, Host FROM mysql.user WHERE User LIKE 'u%\\_%' ORDER BY User")) {
        grants[account.User] = (await query<Record<string, string>>(root, 'SHOW GRANTS FOR ?@?', [account.User, account.Host])).map((row) => Object.values(row)[0]!).sort();
      }
      return { databases, grants };
    } finally {
      await root.end();
    }
  }

  beforeAll(async () => {
    [sourceDb, freshDb] = await Promise.all([startMariaDb(), startMariaDb()]);
    const root = await sourceDb.root();
    try {
      for (const name of studentDatabases) {
        await root.query(`CREATE DATABASE \`${name}\``);
        await root.query(`CREATE USER ?@'%' IDENTIFIED BY ?`, [name, `pw-${name}`]);
        await root.query(`GRANT ALL PRIVILEGES ON \`${name.replace(/_/g, '\\_')}\`.* TO ?@'%'`, [name]);
      }
      await root.query('CREATE TABLE u11_abc.posts (id INT AUTO_INCREMENT PRIMARY KEY, title VARCHAR(200) CHARACTER SET utf8mb4, body TEXT CHARACTER SET utf8mb4, image BLOB, published DATETIME NULL, score DECIMAL(6,2))');
      for (let batch = 0; batch < 5; batch++) {
        const rows = Array.from({ length: 100 }, (_, index) => [`Bericht ${batch * 100 + index} — café ✓ 😀`, `tekst\n'quote' "dubbel" \\ backslash ${index}`, randomBytes(64 + index), index % 7 === 0 ? null : new Date(Date.UTC(2026, 0, 1, 0, index)), (index * 1.25).toFixed(2)]);
        await root.query('INSERT INTO u11_abc.posts (title, body, image, published, score) VALUES ?', [rows]);
      }
      await root.query('CREATE TABLE u12_web.users (id INT PRIMARY KEY, email VARCHAR(100) UNIQUE, active TINYINT(1))');
      await root.query('CREATE TABLE u12_web.orders (id INT PRIMARY KEY, user_id INT, total INT, FOREIGN KEY (user_id) REFERENCES u12_web.users(id))');
      await root.query('INSERT INTO u12_web.users VALUES ?', [Array.from({ length: 40 }, (_, index) => [index + 1, `student${index}@school.nl`, index % 2])]);
      await root.query('INSERT INTO u12_web.orders VALUES ?', [Array.from({ length: 80 }, (_, index) => [index + 1, (index % 40) + 1, index * 3])]);
      await root.query('CREATE VIEW u12_web.active_users AS SELECT id, email FROM u12_web.users WHERE active = 1');
      // Not a student database: never in the archive.
      await root.query('CREATE DATABASE phpmyadmin');
      await root.query('CREATE TABLE phpmyadmin.pma (id INT)');
    } finally {
      await root.end();
    }
  }, TIMEOUT);

  afterAll(async () => {
    await Promise.all([sourceDb?.stop(), freshDb?.stop()]);
  });

  it(
    'backs up every student database and the agent state, refuses the wrong key without changing anything, restores all onto a fresh MariaDB',
    async () => {
      const stateDir = path.join(work, 'agent-state');
      await mkdir(path.join(stateDir, 'wireguard'), { recursive: true, mode: 0o700 });
      await writeFile(path.join(stateDir, 'wireguard', 'wg0.key'), `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
      await writeFile(path.join(stateDir, 'wireguard', 'peers.json'), JSON.stringify([{ publicKey: randomBytes(32).toString('base64'), address: '10.8.0.2/32' }, { publicKey: randomBytes(32).toString('base64'), address: '10.8.0.3/32' }]));
      await writeFile(path.join(stateDir, 'site-activity.json'), JSON.stringify({ 'site1.dev.school.nl': '2026-11-26T10:00:00Z' }));
      await mkdir(path.join(stateDir, 'keys', 'project-7'), { recursive: true });
      await writeFile(path.join(stateDir, 'keys', 'project-7', 'id_ed25519'), randomBytes(400), { mode: 0o600 });
      await chmod(path.join(stateDir, 'keys'), 0o750);
      await symlink('wireguard/wg0.key', path.join(stateDir, 'current.key'));
      // Git deploys: the sealed deploy keys and their seal key go in; a checkout, git's state and an
      // opened key (agents without a git runner keep them here) do not: the next deploy fetches again.
      await mkdir(path.join(stateDir, 'deploy', 'keys'), { recursive: true });
      await writeFile(path.join(stateDir, 'deploy', 'seal.key'), randomBytes(32), { mode: 0o600 });
      await writeFile(path.join(stateDir, 'deploy', 'keys', '7.json'), JSON.stringify({ format: 1, sealed: randomBytes(64).toString('base64') }));
      const stateFiles = await fileHashes(stateDir);
      for (const refetched of ['checkouts/7', 'git/git-home', 'run/key-abc']) await mkdir(path.join(stateDir, 'deploy', refetched), { recursive: true });
      await writeFile(path.join(stateDir, 'deploy', 'checkouts', '7', 'index.html'), '<h1>opnieuw op te halen</h1>\n');

      const before = await studentSnapshot(sourceDb);
      expect(Object.keys(before.databases)).toEqual(studentDatabases);
      const backupDir = path.join(work, 'agent-backups');

      const made = await runBackupCli(['backup', '--role', 'agent', '--dir', backupDir, '--key', keyFile], { AGENT_MYSQL_URL: sourceDb.adminUrl, AGENT_DATA_DIR: stateDir });
      expect(made, made.stderr).toMatchObject({ code: 0, stderr: '' });
      const archive = archiveIn(made.stdout);
      expect(path.basename(archive)).toMatch(/^devplein-agent-/);
      // The outcome stays in the data dir for the agent to report (the status page); not in the archive:
      // the restored state below equals the state from before the backup.
      const status = agentBackupStatusSchema.parse(JSON.parse(await readFile(path.join(stateDir, AGENT_BACKUP_STATUS_FILE), 'utf8')));
      expect(status).toMatchObject({ ok: true, sizeBytes: (await stat(archive)).size });
      expect(((await stat(path.join(stateDir, AGENT_BACKUP_STATUS_FILE))).mode & 0o777).toString(8)).toBe('644');

      const freshState = path.join(work, 'fresh-agent-state');
      const env = { AGENT_MYSQL_URL: freshDb.adminUrl, AGENT_DATA_DIR: freshState };
      const wrong = await runBackupCli(['restore', archive, '--key', wrongKeyFile], env);
      expect(wrong.code).toBe(4);
      expect(wrong.stderr).toContain('Verkeerde backupsleutel');
      expect(await studentSnapshot(freshDb)).toEqual({ databases: {}, grants: {} });
      expect(await exists(freshState)).toBe(false);

      const restored = await runBackupCli(['restore', archive, '--key', keyFile], env);
      expect(restored, restored.stderr).toMatchObject({ code: 0, stderr: '' });
      expect(restored.stdout).toContain('3 studentendatabase(s)');

      expect(await studentSnapshot(freshDb)).toEqual(before);
      expect(await fileHashes(freshState)).toEqual(stateFiles);
      const root = await freshDb.root();
      try {
        expect(await query(root, "SHOW DATABASES LIKE 'phpmyadmin'")).toEqual([]);
      } finally {
        await root.end();
      }
      // A student signs in to the restored server with the password they had.
      const student = await mysql.createConnection({ host: '127.0.0.1', port: freshDb.port, user: 'u12_web', password: 'pw-u12_web', database: 'u12_web' });
      try {
        expect(await query<{ n: number }>(student, 'SELECT COUNT(*) AS n FROM active_users')).toEqual([{ n: 20 }]);
      } finally {
        await student.end();
      }

      const again = await runBackupCli(['restore', archive, '--key', keyFile], env);
      expect(again.code).toBe(3);
      expect(again.stderr).toContain('bestaan al');

      // A failed night is recorded too: MariaDB does not answer.
      const failed = await runBackupCli(['backup', '--role', 'agent', '--dir', backupDir, '--key', keyFile], {
        AGENT_MYSQL_URL: `mysql://root@127.0.0.1:${await findFreePort()}/`,
        AGENT_DATA_DIR: stateDir,
      });
      expect(failed.code).toBe(1);
      const failedStatus = agentBackupStatusSchema.parse(JSON.parse(await readFile(path.join(stateDir, AGENT_BACKUP_STATUS_FILE), 'utf8')));
      expect(failedStatus).toMatchObject({ ok: false, sizeBytes: null });
      expect(failedStatus.message).not.toBe('');
      // It keeps the good night's end (the agent's devplein_backup_last_success_timestamp_seconds).
      expect(status.lastSuccessAt).toBe(status.finishedAt);
      expect(failedStatus.lastSuccessAt).toBe(status.finishedAt);

      const rows = Object.values(before.databases).flatMap((tables) => Object.values(tables)).reduce((sum, table) => sum + table.length, 0);
      console.log(
        `[backup figures] agent: ${Object.keys(before.databases).length} student databases, ${Object.values(before.databases).reduce((sum, tables) => sum + Object.keys(tables).length, 0)} tables/views, ${rows} rows, ` +
          `${Object.keys(before.grants).length} accounts, ${Object.keys(stateFiles).length} state entries; archive ${(await stat(archive)).size} bytes; backup ${made.ms} ms, restore ${restored.ms} ms; all equal after restore`,
      );
    },
    TIMEOUT,
  );
  it('never runs a dump’s client commands as the admin: a dump made by an old mariadb-dump is refused before any change (issue 35)', async () => {
    // An older mariadb-dump (before CVE-2024-21096) wrote a student's table name into its comment as
    // it was: a name with a newline ends the comment, and the line after it is a client command.
    const marker = path.join(work, 'restore-ran-a-shell');
    const staging = await mkdtemp(path.join(work, 'crafted-'));
    for (const part of ['mysql', 'state', 'config']) await mkdir(path.join(staging, part));
    await writeFile(
      path.join(staging, 'mysql', 'u14_bad.sql'),
      ['-- MariaDB dump 10.19  Distrib 10.11.6-MariaDB, for debian-linux-gnu (x86_64)', '--', '-- Table structure for table `x', `\\! touch ${marker}`, '`', '--', 'CREATE TABLE `t` (id INT);', ''].join('\n'),
    );
    const archive = path.join(work, 'crafted-agent.backup');
    await sealArchive(
      staging,
      { format: 1, role: 'agent', devplein_version: 'test', last_migration: null, created_at: new Date().toISOString(), host: 'oude-server', included: [], not_included: [], contents: [] },
      archive,
      await readBackupKey(keyFile),
    );
    const freshState = path.join(work, 'crafted-agent-state');
    const restored = await runBackupCli(['restore', archive, '--key', keyFile], { AGENT_MYSQL_URL: freshDb.adminUrl, AGENT_DATA_DIR: freshState });
    expect(await exists(marker)).toBe(false);
    expect(restored.code, `${restored.stdout}\n${restored.stderr}`).toBe(3);
    expect(restored.stderr).toContain('Niet gedaan: De dump van u14_bad begint niet met de sandboxregel van mariadb-dump');
    const root = await freshDb.root();
    try {
      expect(await query(root, "SHOW DATABASES LIKE 'u14\\_bad'")).toEqual([]);
    } finally {
      await root.end();
    }
    expect(await exists(freshState)).toBe(false);
  }, TIMEOUT);

  it('a status the agent cannot be given is a warning, not a failed backup: the archive is made and retention still prunes', async () => {
    const stateDir = path.join(work, 'agent-state-blocked');
    // Where the status goes is taken by a folder: the rename onto it fails, for root too.
    await mkdir(path.join(stateDir, AGENT_BACKUP_STATUS_FILE, 'in-the-way'), { recursive: true });
    const backupDir = path.join(work, 'agent-backups-blocked');
    await mkdir(backupDir, { recursive: true });
    for (const at of ['2026-11-20T02-00-00-000Z', '2026-11-21T02-00-00-000Z']) await writeFile(path.join(backupDir, `devplein-agent-${at}.backup`), 'x');
    const made = await runBackupCli(['backup', '--role', 'agent', '--dir', backupDir, '--key', keyFile, '--keep', '1'], { AGENT_MYSQL_URL: sourceDb.adminUrl, AGENT_DATA_DIR: stateDir });
    expect(made.code, `${made.stdout}\n${made.stderr}`).toBe(0);
    expect(made.stderr).toContain('de backupstatus voor de statuspagina is niet geschreven');
    expect(await readdir(backupDir)).toEqual([path.basename(archiveIn(made.stdout))]);
  }, TIMEOUT);

  it('one role that fails never skips the next: both roles, no control-plane database, and the agent archive is still made', async () => {
    const stateDir = path.join(work, 'agent-state-both');
    await mkdir(stateDir, { recursive: true });
    const backupDir = path.join(work, 'both-roles');
    const made = await runBackupCli(['backup', '--dir', backupDir, '--key', keyFile], { BACKUP_ROLE: 'control-plane agent', AGENT_MYSQL_URL: sourceDb.adminUrl, AGENT_DATA_DIR: stateDir });
    expect(made.code, `${made.stdout}\n${made.stderr}`).toBe(3);
    expect(made.stderr).toContain('DATABASE_URL is niet ingesteld');
    expect(path.basename(archiveIn(made.stdout))).toMatch(/^devplein-agent-/);
    const status = agentBackupStatusSchema.parse(JSON.parse(await readFile(path.join(stateDir, AGENT_BACKUP_STATUS_FILE), 'utf8')));
    expect(status.ok).toBe(true);
  }, TIMEOUT);
});
