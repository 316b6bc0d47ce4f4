/**
 * No secret on a command line (issue 33): every local user can read every process's argv in
 * /proc/*\/cmdline, so install, upgrade, backup and restore must hand passwords and keys over in
 * the environment (readable by the process's user and root only), in a 0600 option file or over
 * stdin. Each run here goes under strace (tests/support/clients/argv-trace.ts), and the test fails on any
 * command line that carries a secret it knows: the control plane's database password, the agent's
 * MariaDB password, ENCRYPTION_KEY, SESSION_SECRET, REALTIME_SECRET, OIDC_CLIENT_SECRET, the
 * backup key (its text and its bytes as hex) and a student's database password.
 *
 * The runs, against a throwaway PostgreSQL (TCP logins other than postgres need their password:
 * scram-sha-256) and a throwaway MariaDB:
 *   - install.sh's database steps (deploy/install-database.sh, as install.sh calls them on a real
 *     root): the control plane's role and database as the postgres user, `devplein migrate` as
 *     the service's user, the agent's MariaDB account as root over the socket;
 *   - upgrade.sh's: the pre-upgrade dump, `devplein migrate` with the whole env file, the restore
 *     into a clean schema;
 *   - `devplein backup` of both roles (settings from the env files, as the timer runs it) and
 *     `devplein restore --force` of each archive.
 * `devplein` is a stand-in that runs the repository's migrate-cli.ts (no release is built here).
 * The passwords carry a quote and a percent sign, percent-encoded in the URLs, as a sysadmin may set
 * them: the role and the account must accept the password the services decode from the URL.
 * Runs as root (runuser, setpriv, strace of other users' processes).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKnex, migrate } from '../../../control-plane/src/db/knex.ts';
import { commandLinesWithSecrets, execveLines, runTraced, straceArgs } from '../../support/clients/argv-trace.ts';
import { runBackupCli } from '../../support/clients/backup-cli.ts';
import { startMariaDb, type TestMariaDb } from '../../support/services/mariadb.ts';
import { startPostgres, type PostgresServer } from '../../support/services/postgres.ts';

const run = promisify(execFile);
const repo = path.resolve(import.meta.dirname, '../../..');
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const TIMEOUT = 180_000;

/** A password with the characters that break naive quoting; `core` is the random part the trace is searched for. */
function awkwardPassword(): { plain: string; encoded: string; core: string } {
  const core = randomBytes(12).toString('hex');
  const plain = `it's-${core}-100%`;
  return { plain, encoded: encodeURIComponent(plain).replace(/'/g, '%27'), core };
}

const dbPassword = awkwardPassword();
const mysqlPassword = awkwardPassword();
const studentPassword = randomBytes(12).toString('hex');
const backupKey = randomBytes(32);
const settings = {
  ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  SESSION_SECRET: randomBytes(48).toString('base64'),
  REALTIME_SECRET: randomBytes(24).toString('hex'),
  OIDC_CLIENT_SECRET: randomBytes(24).toString('hex'),
};
/** What must never appear in an argv (name → text). */
const secrets: Record<string, string> = {
  'the database password': dbPassword.core,
  'the MariaDB agent password': mysqlPassword.core,
  "a student's database password": studentPassword,
  'the backup key': backupKey.toString('base64'),
  'the backup key (hex)': backupKey.toString('hex'),
  ...settings,
};

let work: string;
let postgres: PostgresServer;
let mariadb: TestMariaDb;
let port: number;
let databaseUrl: string;
let agentUrl: string;
const config = () => path.join(work, 'etc');
const controlPlaneEnv = () => path.join(config(), 'control-plane.env');
const agentEnv = () => path.join(config(), 'agent.env');
const devplein = () => path.join(work, 'bin/devplein');

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

/**
 * The environment of the install and upgrade steps: the postgres user's psql and createdb reach
 * the throwaway cluster (PGHOST, PGPORT), root's mariadb the throwaway server (its socket in
 * ~/.my.cnf: Debian's client ignores MYSQL_UNIX_PORT), never the machine's own servers.
 */
function stepsEnv(): NodeJS.ProcessEnv {
  return { PATH: SYSTEM_PATH, LANG: 'C.UTF-8', HOME: path.join(work, 'root-home'), PGHOST: '127.0.0.1', PGPORT: String(port) };
}

/**
 * The control plane's role (with the decoded password), database and migrations as an install
 * leaves them, made by the test itself: the upgrade and backup tests do not depend on the install
 * test before them.
 */
async function installedControlPlane(): Promise<void> {
  const password = `'${dbPassword.plain.replace(/'/g, "''")}'`;
  const role = await query(postgres.url, "select 1 from pg_roles where rolname = 'devplein_test'");
  await query(postgres.url, `${role.length > 0 ? 'alter' : 'create'} role devplein_test login password ${password}`);
  if ((await query(postgres.url, "select 1 from pg_database where datname = 'devplein_test'")).length === 0) await query(postgres.url, 'create database devplein_test owner devplein_test');
  const knex = createKnex({ databaseUrl, dataDir: path.join(work, 'cp-data') });
  await migrate(knex).finally(() => knex.destroy());
}

/** Runs a bash script that sources install-common.sh and install-database.sh, under strace; returns its output and every command line it started. */
async function tracedSteps(name: string, script: string): Promise<{ code: number; output: string; leaks: string[]; commands: number }> {
  const trace = path.join(work, `${name}.trace`);
  const file = path.join(work, `${name}.sh`);
  await writeFile(
    file,
    [
      'set -euo pipefail',
      'R=""',
      `source ${JSON.stringify(path.join(repo, 'deploy/install-common.sh'))}`,
      `source ${JSON.stringify(path.join(repo, 'deploy/install-database.sh'))}`,
      // install.sh's fail; its todo collects lines for the end, printed here at once.
      'todo() { printf "   TODO %s\\n" "$1"; }',
      'fail() { echo "install.sh: $*" >&2; exit 1; }',
      script,
    ].join('\n'),
  );
  const env = { ...stepsEnv(), CP_ENV: controlPlaneEnv(), AGENT_ENV: agentEnv(), DEVPLEIN: devplein(), WORK: work };
  const result = await runTraced(trace, 'bash', [file], { env, cwd: work });
  const lines = await execveLines(trace);
  return { code: result.code, output: `${result.stdout}${result.stderr}`, leaks: commandLinesWithSecrets(lines, secrets), commands: lines.length };
}

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('this test runs install.sh steps as root (runuser, setpriv): run it as root');
  work = await mkdtemp(path.join(os.tmpdir(), 'devplein-argv-'));
  await chmod(work, 0o755);
  [postgres, mariadb] = await Promise.all([startPostgres(), startMariaDb()]);
  port = Number(new URL(postgres.url).port);
  // As on a server: logins over TCP need their password (postgres, the test's own, excepted).
  const [{ hba_file: hbaFile } = { hba_file: '' }] = await query<{ hba_file: string }>(postgres.url, 'show hba_file');
  await writeFile(hbaFile, 'local all all trust\nhost all postgres 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 scram-sha-256\n');
  await query(postgres.url, 'select pg_reload_conf()');

  databaseUrl = `postgres://devplein_test:${dbPassword.encoded}@127.0.0.1:${port}/devplein_test`;
  agentUrl = `mysql://devplein_install:${mysqlPassword.encoded}@127.0.0.1:${mariadb.port}/`;
  await mkdir(config(), { recursive: true });
  await writeFile(
    controlPlaneEnv(),
    [`DATABASE_URL=${databaseUrl}`, `DATA_DIR=${path.join(work, 'cp-data')}`, ...Object.entries(settings).map(([key, value]) => `${key}="${value}"`), 'NODE_ENV=production', ''].join('\n'),
    { mode: 0o640 },
  );
  await writeFile(agentEnv(), `AGENT_MYSQL_URL=${agentUrl}\nAGENT_DATA_DIR=${path.join(work, 'agent-data')}\n`, { mode: 0o640 });
  await writeFile(path.join(config(), 'backup.key'), `${backupKey.toString('base64')}\n`, { mode: 0o400 });
  await mkdir(path.join(work, 'cp-data/course-files'), { recursive: true });
  await writeFile(path.join(work, 'cp-data/course-files/les-1.pdf'), randomBytes(2000));
  await mkdir(path.join(work, 'agent-data/wireguard'), { recursive: true });
  await writeFile(path.join(work, 'agent-data/wireguard/peers.json'), '[]\n');
  await mkdir(path.join(work, 'root-home'));
  await writeFile(path.join(work, 'root-home/.my.cnf'), `[client]\nsocket=${mariadb.socket}\n`, { mode: 0o600 });
  // The steps would otherwise make their accounts on this machine's servers.
  const reached = await run('bash', ['-c', 'mariadb -NBe "select @@port"; runuser -u postgres -- psql -qtAc "show port"'], { env: stepsEnv() });
  if (reached.stdout.split('\n').slice(0, 2).join(' ') !== `${mariadb.port} ${port}`) throw new Error(`the steps would reach other servers (ports ${reached.stdout.trim()}), not the test's ${mariadb.port} and ${port}`);
  // bin/devplein of a release, for `migrate` only: the repository's migrations.
  await mkdir(path.dirname(devplein()), { recursive: true });
  await writeFile(
    devplein(),
    `#!/bin/sh\n[ "$1" = migrate ] || exit 2\nshift\ncd ${JSON.stringify(repo)} && exec ${JSON.stringify(process.execPath)} --import tsx --conditions=development control-plane/src/db/migrate-cli.ts "$@"\n`,
    { mode: 0o755 },
  );
}, TIMEOUT);

afterAll(async () => {
  await Promise.all([postgres?.stop(), mariadb?.stop()]);
  if (work) await rm(work, { recursive: true, force: true });
});

describe('no secret on a command line', () => {
  it(
    "install.sh's database steps: the role, the database and the migrations of the control plane, the agent's MariaDB account",
    async () => {
      // One role per run, as install.sh does it.
      const controlPlane = await tracedSteps('install-control-plane', 'control_plane_database "$CP_ENV" root "$DEVPLEIN"');
      const agent = await tracedSteps('install-agent', 'agent_mariadb_account "$AGENT_ENV"');
      const leaks = [...controlPlane.leaks, ...agent.leaks];
      expect(leaks, `command lines with a secret:\n${leaks.join('\n')}`).toEqual([]);
      expect(controlPlane.code, controlPlane.output).toBe(0);
      expect(agent.code, agent.output).toBe(0);
      expect(controlPlane.output).toMatch(/PostgreSQL-rol devplein_test\s+aangemaakt/);
      expect(controlPlane.output).toMatch(/migraties\s+uitgevoerd/);
      expect(agent.output).toMatch(/MariaDB-account devplein_install\s+aangemaakt/);
      // The role has the password the services read from the URL (decoded; the migrations logged in with it), and so has the account.
      expect(await query<{ count: string }>(databaseUrl, 'select count(*) from knex_migrations')).not.toEqual([{ count: '0' }]);
      const connection = await mysql.createConnection({ uri: agentUrl });
      await connection.end();

      const again = await tracedSteps('install-again', 'control_plane_database "$CP_ENV" root "$DEVPLEIN"\nagent_mariadb_account "$AGENT_ENV"');
      expect(again.leaks, `command lines with a secret:\n${again.leaks.join('\n')}`).toEqual([]);
      expect(again.output).toMatch(/PostgreSQL-rol devplein_test\s+ongewijzigd/);
      expect(again.output).toMatch(/migraties\s+ongewijzigd/);
      expect(again.output).toMatch(/MariaDB-account devplein_install\s+ongewijzigd/);
      console.log(`install steps: ${controlPlane.commands + agent.commands} command lines traced, then ${again.commands} on the second run`);
    },
    TIMEOUT,
  );

  it(
    "upgrade.sh's database steps: the dump, the migrations with the env file, the restore into a clean schema",
    async () => {
      await installedControlPlane();
      await query(databaseUrl, 'create table upgrade_probe (id int)');
      const steps = await tracedSteps(
        'upgrade',
        [
          'database_url=$(env_value "$CP_ENV" DATABASE_URL)',
          'dump_database "$database_url" "$WORK/before.dump"',
          'migrated=$(cd / && migrate_with_env_file 0 0 "$CP_ENV" "$DEVPLEIN" 2>&1) || { echo "$migrated"; exit 1; }',
          'report migraties uitgevoerd "$migrated"',
          // What a failed new version's migrations would have left, gone after the restore.
          'runuser -u postgres -- psql -q -d devplein_test -c "create table migrated_probe (id int); alter table migrated_probe owner to devplein_test"',
          'restore_database "$database_url" "$WORK/before.dump"',
          'report database teruggezet',
        ].join('\n'),
      );
      expect(steps.leaks, `command lines with a secret:\n${steps.leaks.join('\n')}`).toEqual([]);
      expect(steps.code, steps.output).toBe(0);
      expect(steps.output).toMatch(/migraties\s+uitgevoerd \((Ran \d+ migration|Database on PostgreSQL is up to date)/);
      expect(((await stat(path.join(work, 'before.dump'))).mode & 0o777).toString(8)).toBe('600');
      const tables = (await query<{ table_name: string }>(databaseUrl, "select table_name from information_schema.tables where table_schema = 'public'")).map((row) => row.table_name);
      expect(tables).toContain('upgrade_probe');
      expect(tables).toContain('knex_migrations');
      expect(tables).not.toContain('migrated_probe');
    },
    TIMEOUT,
  );

  it(
    'devplein backup of both roles and devplein restore of each archive',
    async () => {
      await installedControlPlane();
      const root = await mariadb.root();
      try {
        // The agent's account as install.sh makes it.
        await root.query("CREATE USER IF NOT EXISTS 'devplein_install'@'127.0.0.1'");
        await root.query("ALTER USER 'devplein_install'@'127.0.0.1' IDENTIFIED BY ?", [mysqlPassword.plain]);
        await root.query("GRANT ALL PRIVILEGES ON *.* TO 'devplein_install'@'127.0.0.1' WITH GRANT OPTION");
        await root.query('CREATE DATABASE u7_abc');
        await root.query('CREATE TABLE u7_abc.notes (id INT PRIMARY KEY, body TEXT)');
        await root.query("INSERT INTO u7_abc.notes VALUES (1, 'hallo')");
        await root.query("CREATE USER 'u7_abc'@'%' IDENTIFIED BY ?", [studentPassword]);
        await root.query("GRANT ALL PRIVILEGES ON `u7\\_abc`.* TO 'u7_abc'@'%'");
      } finally {
        await root.end();
      }
      const backups = path.join(work, 'backups');
      // As the timer runs it: the roles, folder and key from backup.env, each role's settings from its env file.
      await writeFile(path.join(config(), 'backup.env'), `BACKUP_ROLE=control-plane agent\nBACKUP_DIR=${backups}\nBACKUP_KEEP=14\nBACKUP_KEY_FILE=${path.join(config(), 'backup.key')}\n`, { mode: 0o600 });
      const env = { DEVPLEIN_CONFIG_DIR: config() };
      const traces: string[] = [];
      const traced = (name: string) => {
        traces.push(path.join(work, `${name}.trace`));
        return straceArgs(traces.at(-1)!);
      };

      const made = await runBackupCli(['backup'], env, traced('backup'));
      expect(made.code, made.stderr).toBe(0);
      const archives = (await readdir(backups)).filter((name) => name.endsWith('.backup')).sort();
      expect(archives).toHaveLength(2);
      for (const archive of archives) {
        const restored = await runBackupCli(['restore', path.join(backups, archive), '--force', '--key', path.join(config(), 'backup.key')], env, traced(`restore-${archive}`));
        expect(restored.code, `${restored.stdout}${restored.stderr}`).toBe(0);
      }
      const lines = (await Promise.all(traces.map(execveLines))).flat();
      const leaks = commandLinesWithSecrets(lines, secrets);
      expect(leaks, `command lines with a secret:\n${leaks.join('\n')}`).toEqual([]);
      // The tools ran (a trace of nothing would prove nothing).
      for (const tool of ['pg_dump', 'pg_restore', 'mariadb-dump', 'mariadb', 'tar']) expect(lines.some((line) => line.includes(`/${tool}"`)), tool).toBe(true);
      console.log(`backup and restore: ${lines.length} command lines traced`);
    },
    TIMEOUT,
  );
});
