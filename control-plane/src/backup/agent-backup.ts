import { chmod, mkdir, mkdtemp, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AGENT_BACKUP_STATUS_FILE, type AgentBackupStatus, agentBackupStatusSchema, BACKUP_NOT_INCLUDED } from '@devplein/contract/backups';
import { archiveName, isEmptyDir, measure, type BackupManifest, type OpenedArchive, replaceDir, runTool, sealArchive } from './archive.ts';
import { RestoreRefused } from './control-plane-backup.ts';
import { copyServerConfig, placeRestoredConfig, serverConfigDir } from './server-config.ts';

/*
 * A dev server's part of a backup: every student database (one mysqldump each, with the
 * students' accounts and grants so they can sign in again after a restore) and the agent's
 * state folder AGENT_DATA_DIR (WireGuard server key and peers, site activity, legacy key folders).
 * The code sits in the control plane's bundle beside `devplein backup` (the agent's own code
 * has no command line); it reads the agent's settings (AGENT_MYSQL_URL, AGENT_DATA_DIR).
 */

/** The student form the agent makes databases and accounts in (host-agent's student-database-names.ts). */
const STUDENT_NAME = /^u[1-9][0-9]{0,15}_[a-z]{1,3}$/;

/** What an agent archive does NOT hold (@devplein/contract/backups). */
export const AGENT_NOT_INCLUDED: readonly string[] = BACKUP_NOT_INCLUDED.agent;

export interface AgentTarget {
  /** AGENT_MYSQL_URL: the agent's MariaDB admin account; undefined on a host without student databases. */
  mysqlUrl: string | undefined;
  /** AGENT_DATA_DIR. */
  dataDir: string;
}

/**
 * A client option file with the account of AGENT_MYSQL_URL (the password never on a command
 * line); removed by the caller with its folder.
 */
async function mysqlOptionFile(dir: string, mysqlUrl: string): Promise<string> {
  const url = new URL(mysqlUrl);
  const file = path.join(dir, 'client.cnf');
  const quote = (value: string) => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  const lines = ['[client]', `user=${quote(decodeURIComponent(url.username))}`, `password=${quote(decodeURIComponent(url.password))}`];
  const socket = url.searchParams.get('socketPath') ?? url.searchParams.get('socket');
  if (socket) lines.push(`socket=${quote(socket)}`);
  else lines.push(`host=${url.hostname || '127.0.0.1'}`, `port=${url.port || '3306'}`, 'protocol=TCP');
  await writeFile(file, `${lines.join('\n')}\n`, { mode: 0o600 });
  return file;
}

/*
 * Restoring runs the `mariadb` client with the admin account of AGENT_MYSQL_URL (root on the dev
 * server) on dumps whose object names students chose (tables, columns, views, triggers,
 * routines). Two things make that safe (issue 35):
 * - mariadb-dump writes names into its comments as they are before the fix of CVE-2024-21096
 *   (MDEV-33727): a table called "x<newline>\! sh …" ends the comment, and the client runs the
 *   next line as a shell command or SQL. A fixed mariadb-dump escapes names and opens every dump
 *   with the sandbox command; the backup refuses an older mariadb-dump, and the restore refuses a
 *   dump without that first line (made by one), before it changes anything;
 * - the client runs with --binary-mode (no client commands read from the dump: no `\!`, no
 *   `source`, only DELIMITER and the sandbox line) and --sandbox; the version check makes sure
 *   the client knows both (MDEV-34203: the sandbox line in --binary-mode).
 */

/**
 * The first release of each MariaDB series whose client tools have both fixes (MDEV-33727 and
 * MDEV-34203, the releases of August 2024); series after 11.5 have them from their first
 * release; other older series (10.4 and before, 10.7-10.10, 11.0, 11.3) never got them.
 */
export const MARIADB_FIXED_RELEASES: Readonly<Record<string, number>> = { '10.5': 26, '10.6': 19, '10.11': 9, '11.1': 6, '11.2': 5, '11.4': 3, '11.5': 2 };

/** The MariaDB release in a tool's `--version` line (`Distrib 10.11.19-MariaDB`, `from 11.8.3-MariaDB`); undefined for another tool (MySQL's). */
export function mariadbRelease(versionLine: string): [number, number, number] | undefined {
  const match = /\b(\d+)\.(\d+)\.(\d+)-MariaDB/.exec(versionLine);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

/** Whether a MariaDB release's client tools have both fixes. */
export function mariadbReleaseIsFixed([major, minor, patch]: [number, number, number]): boolean {
  const fixed = MARIADB_FIXED_RELEASES[`${major}.${minor}`];
  if (fixed !== undefined) return patch >= fixed;
  return major > 11 || (major === 11 && minor > 5);
}

/** The oldest releases accepted, for messages. */
const FIXED_RELEASES_TEXT = Object.entries(MARIADB_FIXED_RELEASES)
  .map(([series, patch]) => `${series}.${patch}`)
  .join(', ');

/** Why `tool` (mariadb or mariadb-dump) may not handle student databases, or undefined when it may. */
export async function mariadbToolProblem(tool: 'mariadb' | 'mariadb-dump'): Promise<string | undefined> {
  const line = (await runTool(tool, ['--version'])).trim();
  const release = mariadbRelease(line);
  if (release && mariadbReleaseIsFixed(release)) return undefined;
  return `${tool} is te oud of geen MariaDB (${line || 'geen versie'}): nodig is een versie met de oplossing voor CVE-2024-21096, MariaDB ${FIXED_RELEASES_TEXT} of nieuwer in die reeks, of 11.6 en later (zie docs/operations.md, Backups).`;
}

/** The first line of every dump a fixed mariadb-dump makes (`/*!999999\- enable the sandbox mode` and a comment end, `M!` in newer ones). */
const SANDBOX_LINE = /^\/\*M?!999999\\- enable the sandbox mode \*\/ ?\r?$/;

/** Whether a dump opens with the sandbox command (so a fixed mariadb-dump made it). */
export async function opensWithSandbox(dump: string): Promise<boolean> {
  const handle = await open(dump, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(200), 0, 200, 0);
    return SANDBOX_LINE.test(buffer.subarray(0, bytesRead).toString('utf8').split('\n')[0] ?? '');
  } finally {
    await handle.close();
  }
}

async function studentDatabases(optionFile: string): Promise<string[]> {
  const out = await runTool('mariadb', [`--defaults-extra-file=${optionFile}`, '--batch', '--skip-column-names', '--execute=SHOW DATABASES']);
  return out.split('\n').map((line) => line.trim()).filter((name) => STUDENT_NAME.test(name)).sort();
}

/** CREATE USER … and GRANT … of every student account, as SQL that recreates them (with their password hashes). */
async function studentAccountsSql(optionFile: string): Promise<string> {
  const sql = (query: string) => runTool('mariadb', [`--defaults-extra-file=${optionFile}`, '--batch', '--skip-column-names', '--raw', `--execute=${query}`]);
  const accounts = (await sql('SELECT User, Host FROM mysql.user'))
    .split('\n')
    .map((line) => line.split('\t'))
    .filter((parts): parts is [string, string] => parts.length === 2 && STUDENT_NAME.test(parts[0] ?? ''));
  const statements: string[] = [];
  for (const [user, host] of accounts) {
    const account = `'${user}'@'${host.replace(/'/g, "''")}'`;
    statements.push(`DROP USER IF EXISTS ${account};`);
    statements.push(`${(await sql(`SHOW CREATE USER ${account}`)).trim()};`);
    for (const grant of (await sql(`SHOW GRANTS FOR ${account}`)).split('\n').filter((line) => line.trim() !== '')) statements.push(`${grant.trim()};`);
  }
  return `${statements.join('\n')}\n`;
}

/**
 * Leaves the outcome of a run in the agent's data dir, where the agent (its own user, which may
 * read but not write what root writes there) reports it to the status page through HostStats.
 * Written beside and renamed, so the agent never reads half a file. A failed run carries the
 * previous status's last success over (the agent's devplein_backup_last_success_timestamp_seconds).
 */
export async function writeAgentBackupStatus(dataDir: string, status: AgentBackupStatus): Promise<void> {
  const file = path.join(dataDir, AGENT_BACKUP_STATUS_FILE);
  const partial = `${file}.partial`;
  const lastSuccessAt = status.ok ? status.finishedAt : status.lastSuccessAt !== undefined ? status.lastSuccessAt : await previousSuccess(file);
  await writeFile(partial, `${JSON.stringify({ ...status, lastSuccessAt })}\n`, { mode: 0o644 });
  await chmod(partial, 0o644);
  await rename(partial, file);
}

/** The last success a status file records (null: none, or no readable file). */
async function previousSuccess(file: string): Promise<string | null> {
  try {
    const previous = agentBackupStatusSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
    if (!previous.success) return null;
    return previous.data.ok ? previous.data.finishedAt : (previous.data.lastSuccessAt ?? null);
  } catch {
    return null;
  }
}

/** Makes this dev server's archive in `backupDir`. */
export async function backupAgent(target: AgentTarget, options: { backupDir: string; key: Buffer; version: string; now?: Date }): Promise<{ archive: string; bytes: number; manifest: BackupManifest }> {
  const now = options.now ?? new Date();
  await mkdir(options.backupDir, { recursive: true, mode: 0o700 });
  const staging = await mkdtemp(path.join(options.backupDir, '.staging-'));
  const secrets = await mkdtemp(path.join(options.backupDir, '.client-'));
  try {
    const dumps = path.join(staging, 'mysql');
    await mkdir(dumps);
    let databases: string[] = [];
    if (target.mysqlUrl) {
      const tooOld = await mariadbToolProblem('mariadb-dump');
      if (tooOld) throw new Error(tooOld);
      const optionFile = await mysqlOptionFile(secrets, target.mysqlUrl);
      databases = await studentDatabases(optionFile);
      for (const name of databases) {
        await runTool(
          'mariadb-dump',
          [`--defaults-extra-file=${optionFile}`, '--single-transaction', '--routines', '--triggers', '--events', '--hex-blob', '--skip-dump-date', name],
          { stdoutFile: path.join(dumps, `${name}.sql`) },
        );
      }
      await writeFile(path.join(staging, 'mysql-accounts.sql'), await studentAccountsSql(optionFile), { mode: 0o600 });
    }
    const state = path.join(staging, 'state');
    await mkdir(state);
    // Not the status file of the last run: restored, it would report the old server's backup. Nor
    // the git deploys' checkouts, git state and opened keys (agents without a git runner keep them
    // here): the next deploy fetches again; the sealed deploy keys and their seal key do go in.
    if (!(await isEmptyDir(target.dataDir))) {
      await runTool('sh', [
        '-c',
        'tar -C "$1" --exclude="./$3" --exclude=./deploy/checkouts --exclude=./deploy/git --exclude=./deploy/run -cf - . | tar -C "$2" -xf -',
        'copy',
        target.dataDir,
        state,
        AGENT_BACKUP_STATUS_FILE,
      ]);
    }
    const config = path.join(staging, 'config');
    await mkdir(config);
    await copyServerConfig(serverConfigDir(), config);
    const manifest: BackupManifest = {
      format: 1,
      role: 'agent',
      devplein_version: options.version,
      last_migration: null,
      created_at: now.toISOString(),
      host: os.hostname(),
      included: [
        `studentendatabases (${databases.length}, één mariadb-dump per database) met hun accounts en rechten`,
        'de toestand van de agent (AGENT_DATA_DIR): WireGuard-sleutel en peers, siteactiviteit, deploy keys',
        `instellingen en geheimen uit ${serverConfigDir()} (agent.env, certificaten), zonder de backupsleutel`,
      ],
      not_included: [...AGENT_NOT_INCLUDED],
      contents: [
        { path: 'mysql', ...(await measure(dumps)) },
        { path: 'state', ...(await measure(state)) },
        { path: 'config', ...(await measure(config)) },
      ],
    };
    const archive = path.join(options.backupDir, archiveName('agent', now));
    const bytes = await sealArchive(staging, manifest, archive, options.key);
    return { archive, bytes, manifest };
  } finally {
    await rm(staging, { recursive: true, force: true });
    await rm(secrets, { recursive: true, force: true });
  }
}

/**
 * Restores an opened agent archive: refuses (before any change) when a student database of the
 * archive already exists or the state folder is not empty, unless `force`; then every database,
 * the accounts, and the state folder. Stop the agent first (docs/operations.md).
 */
export async function restoreAgent(opened: OpenedArchive, target: AgentTarget, options: { force: boolean }): Promise<{ databases: string[]; config: string | undefined }> {
  if (opened.manifest.role !== 'agent') throw new RestoreRefused(`Dit is een backup van de rol ${opened.manifest.role}, niet van een agent: gebruik --role ${opened.manifest.role}.`);
  const dumps = (await readdir(path.join(opened.dir, 'mysql'))).filter((file) => file.endsWith('.sql')).map((file) => file.slice(0, -4));
  for (const name of dumps) if (!STUDENT_NAME.test(name)) throw new RestoreRefused(`Onverwachte database in de backup: ${name}.`);
  if (dumps.length > 0 && !target.mysqlUrl) throw new RestoreRefused('De backup heeft studentendatabases, maar AGENT_MYSQL_URL is niet ingesteld.');
  if (target.mysqlUrl) {
    const tooOld = await mariadbToolProblem('mariadb');
    if (tooOld) throw new RestoreRefused(tooOld);
  }
  for (const name of dumps) {
    if (!(await opensWithSandbox(path.join(opened.dir, 'mysql', `${name}.sql`)))) {
      throw new RestoreRefused(
        `De dump van ${name} begint niet met de sandboxregel van mariadb-dump: een oudere mariadb-dump (zonder de oplossing voor CVE-2024-21096) maakte hem, en namen die studenten kozen kunnen er opdrachten in zetten. Zo'n dump wordt niet als beheerder teruggezet; bekijk en herstel hem met de hand (zie docs/operations.md, Backups).`,
      );
    }
  }
  const secrets = await mkdtemp(path.join(os.tmpdir(), 'devplein-client-'));
  try {
    const optionFile = target.mysqlUrl ? await mysqlOptionFile(secrets, target.mysqlUrl) : undefined;
    if (!options.force) {
      const existing = optionFile ? new Set(await studentDatabases(optionFile)) : new Set<string>();
      const clash = dumps.filter((name) => existing.has(name));
      if (clash.length > 0) throw new RestoreRefused(`Deze databases bestaan al: ${clash.join(', ')}. Herstel gaat naar een lege server; --force vervangt ze.`);
      if (!(await isEmptyDir(target.dataDir))) throw new RestoreRefused(`${target.dataDir} is niet leeg. Herstel gaat naar een lege server; --force vervangt de huidige toestand.`);
    }
    if (optionFile) {
      // --binary-mode: the dump's lines are SQL only (no client command such as \! or source);
      // --sandbox: and should one get through, nothing that touches this server's files or shell.
      const mariadb = (args: string[], stdinFile?: string) => runTool('mariadb', [`--defaults-extra-file=${optionFile}`, '--binary-mode', '--sandbox', ...args], { stdinFile });
      for (const name of dumps) {
        await mariadb([`--execute=DROP DATABASE IF EXISTS \`${name}\`; CREATE DATABASE \`${name}\``]);
        await mariadb([name], path.join(opened.dir, 'mysql', `${name}.sql`));
      }
      const accounts = path.join(opened.dir, 'mysql-accounts.sql');
      if (!(await isEmptyFile(accounts))) await mariadb([], accounts);
    }
    await replaceDir(path.join(opened.dir, 'state'), target.dataDir);
    const config = await placeRestoredConfig(path.join(opened.dir, 'config'), serverConfigDir(), opened.manifest.created_at);
    return { databases: dumps, config };
  } finally {
    await rm(secrets, { recursive: true, force: true });
  }
}

async function isEmptyFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).size === 0;
  } catch {
    return true;
  }
}
