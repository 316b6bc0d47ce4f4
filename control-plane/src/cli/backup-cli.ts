import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { backupAgent, restoreAgent, writeAgentBackupStatus } from '../backup/agent-backup.ts';
import { BackupArchiveError, readBackupKey } from '../backup/archive-cipher.ts';
import { type BackupRole, openArchive, pruneArchives } from '../backup/archive.ts';
import { backupControlPlane, RestoreRefused, restoreControlPlane } from '../backup/control-plane-backup.ts';
import { recordBackupRun } from '../commands/record-backup-run.ts';
import { createKnex } from '../db/knex.ts';

/*
 * `devplein backup` and `devplein restore ARCHIVE` (`npm run backup -- …`, `npm run restore -- …`
 * in the repository; docs/operations.md, "Backups"):
 *   backup [--role control-plane|agent] [--dir D] [--key F] [--keep N]
 *   restore ARCHIVE [--key F] [--force] [--work-dir D]
 * Settings from the environment, as the services have them: DATABASE_URL and DATA_DIR (control
 * plane), AGENT_MYSQL_URL and AGENT_DATA_DIR (agent); BACKUP_ROLE, BACKUP_DIR, BACKUP_KEY_FILE,
 * BACKUP_KEEP (the timer's /etc/devplein/backup.env). Exit codes: 0 done, 1 failed, 2 wrong
 * arguments, 3 refused (the target is not empty, wrong role), 4 the archive cannot be opened
 * (wrong key, damaged, not a backup). Whenever the exit code is not 0, a restore changed nothing
 * unless it says otherwise.
 */

const USAGE = `Gebruik:
  devplein backup [--role control-plane|agent] [--dir <map>] [--key <sleutelbestand>] [--keep <aantal>]
      Maakt één versleutelde backup in de backupmap (standaard /var/backups/devplein) en
      ruimt daar oudere backups van dezelfde rol op (--keep: hoeveel er blijven, standaard 14; 0: alle).
  devplein restore <backup> [--key <sleutelbestand>] [--force] [--work-dir <map>]
      Zet een backup terug op een lege server (de rol staat in de backup). --force vervangt
      bestaande gegevens. Eerst wordt de hele backup ontsleuteld en gecontroleerd; bij een
      verkeerde sleutel of een beschadigde backup verandert er niets.
De sleutel: --key, BACKUP_KEY_FILE, of /etc/devplein/backup.key. Hij zit nooit in de backup: bewaar een kopie offline.`;

const EXIT_FAILED = 1;
const EXIT_USAGE = 2;
const EXIT_REFUSED = 3;
const EXIT_ARCHIVE = 4;

class UsageError extends Error {}

const roleSchema = z.enum(['control-plane', 'agent']);
const keepSchema = z.coerce.number().int().min(0).max(10_000);

type Invocation =
  | { verb: 'backup'; roles: BackupRole[]; dir: string; keyFile: string; keep: number }
  | { verb: 'restore'; archive: string; keyFile: string; force: boolean; workDir: string | undefined };

function parseInvocation(args: string[]): Invocation {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        role: { type: 'string' },
        dir: { type: 'string' },
        key: { type: 'string' },
        keep: { type: 'string' },
        force: { type: 'boolean' },
        'work-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) throw new UsageError('', { cause: 'help' });
  const [verb, ...rest] = positionals;
  const keyFile = path.resolve(values.key ?? (process.env.BACKUP_KEY_FILE || '/etc/devplein/backup.key'));
  if (verb === 'backup') {
    if (rest.length > 0) throw new UsageError(`Onbekend argument: ${rest[0]}`);
    if (values.force || values['work-dir'] !== undefined) throw new UsageError('--force en --work-dir horen bij restore.');
    // --role names one; BACKUP_ROLE (the timer's backup.env) may name both roles of a machine that has both.
    const named = (values.role ?? (process.env.BACKUP_ROLE || 'control-plane')).split(/[\s,]+/).filter(Boolean);
    const roles = z.array(roleSchema).min(1).safeParse([...new Set(named)]);
    if (!roles.success) throw new UsageError(`Onbekende rol: ${values.role ?? process.env.BACKUP_ROLE} (control-plane of agent).`);
    const keep = keepSchema.safeParse(values.keep ?? (process.env.BACKUP_KEEP || '14'));
    if (!keep.success) throw new UsageError(`--keep moet een geheel getal van 0 tot 10000 zijn (nu: ${values.keep ?? process.env.BACKUP_KEEP}).`);
    return { verb, roles: roles.data, dir: path.resolve(values.dir ?? (process.env.BACKUP_DIR || '/var/backups/devplein')), keyFile, keep: keep.data };
  }
  if (verb === 'restore') {
    if (rest.length !== 1) throw new UsageError(rest.length === 0 ? 'restore heeft een backupbestand nodig.' : `Onbekend argument: ${rest[1]}`);
    if (values.role !== undefined || values.keep !== undefined || values.dir !== undefined) throw new UsageError('restore neemt geen --role, --keep of --dir (de rol staat in de backup).');
    return { verb, archive: path.resolve(rest[0]!), keyFile, force: values.force ?? false, workDir: values['work-dir'] };
  }
  throw new UsageError(verb === undefined ? 'Geef een opdracht: backup of restore.' : `Onbekende opdracht: ${verb}`);
}

function databaseUrlOrFail(): string {
  const url = process.env.DATABASE_URL;
  if (!url) {
    throw new RestoreRefused(
      'DATABASE_URL is niet ingesteld: backup en herstel werken met PostgreSQL. (De ingebouwde database van npm start: stop npm start en kopieer DATA_DIR.)',
    );
  }
  return url;
}

/**
 * The role's settings as its service has them: when the environment does not set them already,
 * `/etc/devplein/{role}.env` (DEVPLEIN_CONFIG_DIR moves it) is read, so that `devplein backup`
 * and `devplein restore` by hand and the timer see the same DATABASE_URL / AGENT_* values.
 */
function loadRoleSettings(role: BackupRole): void {
  const present = role === 'control-plane' ? process.env.DATABASE_URL : process.env.AGENT_MYSQL_URL ?? process.env.AGENT_DATA_DIR;
  if (present !== undefined) return;
  const file = path.join(process.env.DEVPLEIN_CONFIG_DIR || '/etc/devplein', `${role}.env`);
  if (!existsSync(file)) return;
  process.loadEnvFile(file);
}

const controlPlaneDataDir = () => path.resolve(process.env.DATA_DIR || 'data');
const agentTarget = () => ({ mysqlUrl: process.env.AGENT_MYSQL_URL || undefined, dataDir: path.resolve(process.env.AGENT_DATA_DIR || '/var/lib/devplein-agent') });
const version = () => process.env.DEVPLEIN_VERSION || 'development';

function megabytes(bytes: number): string {
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/**
 * Backs up each role in turn. One role that fails never skips the next (on a server with both
 * roles the control plane's archive must not depend on the dev server's); the exit code is the
 * first failure's.
 */
async function backup(invocation: Extract<Invocation, { verb: 'backup' }>): Promise<number> {
  const key = await readBackupKey(invocation.keyFile);
  let exitCode = 0;
  for (const role of invocation.roles) {
    try {
      loadRoleSettings(role);
      await backupRole(role, key, invocation);
    } catch (error) {
      const code = reportFailure(error, invocation.roles.length > 1 ? `Backup van ${role}` : 'Backup');
      if (exitCode === 0) exitCode = code;
    }
  }
  return exitCode;
}

/**
 * What the status page is told after an archive was made. Failing to tell it is a warning, never
 * a failed backup: the archive exists, and retention must still run (or the disk fills up).
 */
async function recordOutcome(what: string, record: () => Promise<void>): Promise<void> {
  try {
    await record();
  } catch (error) {
    console.warn(`Let op: ${what} is niet geschreven (${error instanceof Error ? error.message : String(error)}); de backup zelf is gemaakt.`);
  }
}

function summarise(manifest: { contents: Array<{ path: string; files: number; bytes: number }> }): string {
  return manifest.contents.map((part) => `${part.path}: ${part.files} bestand(en), ${megabytes(part.bytes)}`).join('; ');
}

async function backupRole(role: BackupRole, key: Buffer, invocation: Extract<Invocation, { verb: 'backup' }>): Promise<void> {
  const startedAt = new Date();
  const seconds = () => ((Date.now() - startedAt.getTime()) / 1000).toFixed(1);
  if (role === 'agent') {
    const target = agentTarget();
    let result;
    try {
      result = await backupAgent(target, { backupDir: invocation.dir, key, version: version(), now: startedAt });
    } catch (error) {
      // The status page must show a failed night of a dev server too (through its agent).
      const message = error instanceof Error ? error.message : String(error);
      await writeAgentBackupStatus(target.dataDir, { finishedAt: new Date().toISOString(), ok: false, sizeBytes: null, message: message.slice(0, 2000) }).catch(() => {});
      throw error;
    }
    const summary = summarise(result.manifest);
    console.log(`Backup gemaakt: ${result.archive} (${megabytes(result.bytes)}, ${seconds()} s).`);
    await recordOutcome('de backupstatus voor de statuspagina', () =>
      writeAgentBackupStatus(target.dataDir, { finishedAt: new Date().toISOString(), ok: true, sizeBytes: result.bytes, message: summary }),
    );
  } else {
    const databaseUrl = databaseUrlOrFail();
    const knex = createKnex({ databaseUrl, dataDir: controlPlaneDataDir(), log: { warn: () => {}, error: () => {}, debug: () => {} } });
    try {
      let result;
      try {
        result = await backupControlPlane({ databaseUrl, dataDir: controlPlaneDataDir() }, { backupDir: invocation.dir, key, version: version(), now: startedAt });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        // The status page must show a failed night too; when the database itself is the problem, the journal has it.
        await recordBackupRun(knex, { role: 'control-plane', startedAt, finishedAt: new Date(), ok: false, message: message.slice(0, 2000) }).catch(() => {});
        throw error;
      }
      const summary = summarise(result.manifest);
      console.log(`Backup gemaakt: ${result.archive} (${megabytes(result.bytes)}, ${seconds()} s). ${summary}.`);
      await recordOutcome('de backuprun voor de statuspagina (in PostgreSQL)', () =>
        recordBackupRun(knex, { role: 'control-plane', startedAt, finishedAt: new Date(), ok: true, sizeBytes: result.bytes, archivePath: result.archive, message: summary }),
      );
    } finally {
      await knex.destroy();
    }
  }
  if (invocation.keep > 0) {
    const removed = await pruneArchives(invocation.dir, role, invocation.keep);
    if (removed.length > 0) console.log(`Opgeruimd (ouder dan de nieuwste ${invocation.keep}): ${removed.join(', ')}`);
  }
}

async function restore(invocation: Extract<Invocation, { verb: 'restore' }>): Promise<void> {
  const started = Date.now();
  const key = await readBackupKey(invocation.keyFile);
  const opened = await openArchive(invocation.archive, key, invocation.workDir);
  try {
    const { manifest } = opened;
    loadRoleSettings(manifest.role);
    console.log(`Backup ontsleuteld en gecontroleerd: rol ${manifest.role}, gemaakt ${manifest.created_at} op ${manifest.host} (devplein ${manifest.devplein_version}).`);
    if (manifest.role === 'agent') {
      const result = await restoreAgent(opened, agentTarget(), { force: invocation.force });
      console.log(`Hersteld: ${result.databases.length} studentendatabase(s) en de toestand van de agent in ${agentTarget().dataDir} (${((Date.now() - started) / 1000).toFixed(1)} s). Start nu de agent: systemctl start devplein-agent.`);
      if (result.config) console.log(`De instellingen van de oude server (agent.env, certificaten) staan in ${result.config}: neem over wat deze server nodig heeft (zie docs/operations.md, Backups).`);
    } else {
      const databaseUrl = databaseUrlOrFail();
      const result = await restoreControlPlane(opened, { databaseUrl, dataDir: controlPlaneDataDir() }, { force: invocation.force });
      console.log(
        `Hersteld: de database en de cursusbestanden in ${controlPlaneDataDir()}${result.migrated.length > 0 ? `; daarna ${result.migrated.length} migratie(s): ${result.migrated.join(', ')}` : ''} (${((Date.now() - started) / 1000).toFixed(1)} s).`,
      );
      if (result.config) console.log(`De instellingen van de oude server (env-bestanden, certificaten) staan in ${result.config}.`);
      if (result.encryptionKeyDiffers) {
        console.log(
          `Let op: ENCRYPTION_KEY in ${path.join(result.config ?? '', 'control-plane.env')} verschilt van die van deze server. Zet de oude in control-plane.env vóór de start, anders zijn de opgeslagen databasewachtwoorden en VPN-sleutels onleesbaar.`,
        );
      }
    }
    console.log(`Niet in de backup (zie docs/operations.md): ${manifest.not_included.join('; ')}.`);
  } finally {
    await opened.dispose();
  }
}

// The timer's settings (BACKUP_ROLE, BACKUP_DIR, BACKUP_KEEP, BACKUP_KEY_FILE), so a run by hand does
// what the timer does; what the environment or the command line says wins.
const backupEnv = path.join(process.env.DEVPLEIN_CONFIG_DIR || '/etc/devplein', 'backup.env');
if (existsSync(backupEnv)) process.loadEnvFile(backupEnv);

let invocation: Invocation;
try {
  invocation = parseInvocation(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  if (error.cause === 'help') {
    console.log(USAGE);
    process.exit(0);
  }
  console.error(error.message);
  console.error(USAGE);
  process.exit(EXIT_USAGE);
}

/** Says what went wrong, in Dutch and without a stack trace (DEVPLEIN_DEBUG shows it); returns the exit code. */
function reportFailure(error: unknown, what: string): number {
  if (error instanceof BackupArchiveError) {
    console.error(error.message);
    return error.reason === 'bad-key-file' && invocation.verb === 'backup' ? EXIT_FAILED : EXIT_ARCHIVE;
  }
  if (error instanceof RestoreRefused) {
    console.error(`Niet gedaan: ${error.message}`);
    return EXIT_REFUSED;
  }
  if (process.env.DEVPLEIN_DEBUG) console.error(error);
  console.error(`${what} mislukt: ${error instanceof Error ? error.message : String(error)}`);
  return EXIT_FAILED;
}

try {
  if (invocation.verb === 'backup') process.exitCode = await backup(invocation);
  else await restore(invocation);
} catch (error) {
  process.exitCode = reportFailure(error, invocation.verb === 'backup' ? 'Backup' : 'Herstel');
}
