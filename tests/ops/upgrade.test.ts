/**
 * `install.sh upgrade` (deploy/upgrade.sh) with the real release bundle: the release is built
 * once (0.1.0) and installed with install.sh into a throwaway root (as install-script.test.ts),
 * its control plane pointed at a throwaway PostgreSQL database with the demo data. "Newer"
 * bundles are hard-linked copies of the unpacked tree with another VERSION:
 *   0.1.1  good: every row kept, 0.1.1 serves, a 0600 dump exists;
 *   0.1.2  its `devplein migrate` writes a probe table, then fails;
 *   0.1.3  its control plane writes a probe table, then throws at start;
 *   0.1.4  good again, its example env file with a new setting and one fewer (both listed, the
 *          installed file untouched); older releases pruned (the last 3 kept, the previous one
 *          always) and the pre-upgrade dumps (the last DEVPLEIN_KEEP_DUMPS).
 *   then 0.1.3 again (older: refused) and 0.1.5 without DEVPLEIN_SERVICE_MANAGER (refused);
 *   0.1.6  packed and signed as a release is, through the installed 0.1.4's own `devplein
 *          upgrade <tarball>` after `devplein release-signers add` of the test's key: checked,
 *          unpacked into a private folder, and its real upgrade.sh run from there.
 * After each broken one: exit code 1, `current` back at 0.1.1, 0.1.1 serving /healthz, the rows
 * as before and no probe table (the pre-upgrade dump was restored into a clean schema).
 *
 * systemd does not run on the test machines (no /run/systemd/system), so
 * tests/support/stacks/service-manager.sh stands in for it (DEVPLEIN_SERVICE_MANAGER): it starts each
 * unit's ExecStart from <root>/opt/devplein/current as the unit's user with its env file, and
 * waits for its ExecStartPost readiness check, as systemd would.
 *
 * In `npm run test:ops` (vitest.ops.config.ts), not in `npm test` (the README says why): it
 * builds the release (most of its time; TEST_RELEASE_TARBALL names one built before instead)
 * and starts the control plane six times: 85–136 s on a quiet 2-core machine. Runs as root
 * (useradd, setpriv).
 */
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, readlink, rm, stat, writeFile } from 'node:fs/promises';
import { readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoData } from '../../control-plane/src/db/seed.ts';
import { packTarGz } from '../../scripts/lib/release/archive.ts';
import { signFile, writeChecksum } from '../../scripts/lib/release/sign.ts';
import { createTestDatabase, type TestDatabase } from '../support/services/database.ts';
import { findFreePort, waitForHttp } from '../support/clients/ports.ts';
import { startPostgres, type PostgresServer } from '../support/services/postgres.ts';

const run = promisify(execFile);
const repo = path.resolve(import.meta.dirname, '../..');
const standIn = path.join(repo, 'tests/support/stacks/service-manager.sh');
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

let oldVersion: string;
let work: string;
let root: string;
let bundles: string;
let database: TestDatabase | undefined;
let postgres: PostgresServer | undefined;

/** Whether the test's PostgreSQL answers, and the end of its log: a rollback that fails for want of its database says so. */
async function postgresState(): Promise<string> {
  const answers = await run('pg_isready', ['-d', postgres!.url]).then(
    () => 'answers',
    (error: { stdout?: string }) => `does NOT answer (${(error.stdout ?? '').trim()})`,
  );
  const log = await readFile(postgres!.logFile, 'utf8').catch((error: Error) => `(no log: ${error.message})`);
  return `the test's PostgreSQL ${answers}; its log ends:\n${log.split('\n').slice(-25).join('\n')}`;
}
let healthUrl: string;
/** The dev server's root (the agent role alone, as on a server of its own). */
let agentRoot: string;
let agentHealthUrl: string;
const managerEnv = (inRoot = root): Record<string, string> => ({ PATH: SYSTEM_PATH, LANG: 'C.UTF-8', DEVPLEIN_SERVICE_MANAGER: standIn, DEVPLEIN_STANDIN_ROOT: inRoot });

const bundleDir = (version: string): string => path.join(bundles, `devplein-${version}`);

/** A probe that marks the database (through psql), then fails: what a broken newer version does. */
function probe(step: string, failure: string): string {
  return `import('node:child_process').then(({ execFileSync }) => {
  execFileSync('psql', ['--no-psqlrc', '-q', '-v', 'ON_ERROR_STOP=1', '--dbname', process.env.DATABASE_URL, '-c',
    "create table if not exists upgrade_probe (step text); insert into upgrade_probe values ('${step}')"]);
  ${failure}
});
`;
}

/** A file of a newer bundle: its new content, or a change of the built one's. */
interface BundleEdit {
  file: string;
  content: string | ((old: string) => string);
}

/** A newer bundle: the built one, hard-linked, with another VERSION and maybe changed files. */
async function makeBundle(version: string, ...edits: BundleEdit[]): Promise<void> {
  await run('cp', ['-al', bundleDir(oldVersion), bundleDir(version)]);
  for (const { file, content } of [{ file: 'VERSION', content: `${version}\n` }, ...edits]) {
    const target = path.join(bundleDir(version), file);
    const text = typeof content === 'string' ? content : content(await readFile(target, 'utf8'));
    // Replaced, not written through: the files are hard links of the built bundle's.
    await rm(target);
    await writeFile(target, text, { mode: 0o644 });
  }
}

async function upgrade(version: string, env: Record<string, string> = {}, inRoot = root): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(path.join(bundleDir(version), 'install.sh'), ['upgrade', '--unsigned', '--root', inRoot], {
      env: { ...managerEnv(inRoot), ...env },
      timeout: 300_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, output: `${stdout}${stderr}` };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

/** Rows per table of the control plane's database. */
async function rowCounts(): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: database!.url });
  await client.connect();
  try {
    const { rows: tables } = await client.query<{ name: string }>("select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1");
    const counts: Record<string, number> = {};
    for (const { name } of tables) {
      const { rows } = await client.query<{ n: number }>(`select count(*)::int as n from "${name}"`);
      counts[name] = rows[0]?.n ?? -1;
    }
    return counts;
  } finally {
    await client.end();
  }
}

/** The release whose node runs a unit (the stand-in's pid file, /proc/<pid>/exe). */
async function servingRelease(unit = 'devplein-control-plane.service', inRoot = root): Promise<string | undefined> {
  const pid = (await readFile(path.join(inRoot, `run/standin/${unit}.pid`), 'utf8')).trim();
  const exe = await readlink(`/proc/${pid}/exe`);
  return path.relative(path.join(inRoot, 'opt/devplein/releases'), exe).split(path.sep)[0];
}

async function healthStatus(): Promise<{ code: number; status: unknown }> {
  const response = await fetch(healthUrl);
  return { code: response.status, status: ((await response.json()) as { status?: unknown }).status };
}

const current = (inRoot = root): Promise<string> => readlink(path.join(inRoot, 'opt/devplein/current'));

/** A root with the host's accounts minus devplein's (useradd --prefix needs the four files). */
async function makeRoot(dir: string): Promise<void> {
  await mkdir(path.join(dir, 'etc'), { recursive: true, mode: 0o755 });
  for (const file of ['passwd', 'group', 'shadow', 'gshadow']) {
    const lines = readFileSync(`/etc/${file}`, 'utf8').split('\n').filter((line) => !line.startsWith('devplein'));
    await writeFile(path.join(dir, 'etc', file), lines.join('\n'), { mode: statSync(`/etc/${file}`).mode & 0o777 });
  }
}

/** Points the installed env files at the test's database and free ports, paths inside the root. */
async function configure(port: number): Promise<void> {
  const cpEnv = path.join(root, 'etc/devplein/control-plane.env');
  let text = await readFile(cpEnv, 'utf8');
  text = text.replace(/^([A-Z_]+)=(\/(?:etc|var\/lib|opt)\/devplein)/gm, `$1=${root}$2`);
  const settings: Record<string, string> = {
    DATABASE_URL: database!.url,
    PORT: String(port),
    METRICS_LISTEN: '',
    OIDC_ISSUER: 'https://login.school.test',
    OIDC_CLIENT_ID: 'devplein',
    OIDC_CLIENT_SECRET: 'k3y0f7h3sch00l4e9c2b1a6d5f8e3c7b',
    AGENT_ADDRESS: `localhost:${await findFreePort()}`,
    REALTIME_PORT: String(await findFreePort()),
    LOG_LEVEL: 'warn',
  };
  for (const [key, value] of Object.entries(settings)) text = text.replace(new RegExp(`^${key}=.*$`, 'm'), `${key}=${value}`);
  await writeFile(cpEnv, text);
  // soketi's fixed ports (Environment= in its unit) are overridden by its env file, as in systemd.
  const soketi = [`SOKETI_PORT=${settings.REALTIME_PORT}`, `SOKETI_METRICS_SERVER_PORT=${await findFreePort()}`, `SOKETI_CLUSTER_PORT=${await findFreePort()}`];
  await writeFile(path.join(root, 'etc/devplein/soketi.env'), `${await readFile(path.join(root, 'etc/devplein/soketi.env'), 'utf8')}${soketi.join('\n')}\n`);
}

/** envFile's KEY=value lines with `settings` replacing (or added to) theirs. */
function withSettings(text: string, settings: Record<string, string>): string {
  let result = text;
  for (const [key, value] of Object.entries(settings)) {
    const line = new RegExp(`^${key}=.*$`, 'm');
    result = line.test(result) ? result.replace(line, `${key}=${value}`) : `${result}${key}=${value}\n`;
  }
  return result;
}

/**
 * The installed agent's env file, made safe for a shared test machine: its paths inside the root,
 * free loopback ports, no Caddy, its own Docker network and WireGuard interface name, and the
 * host's firewall left alone (the stand-in gives no capabilities). The screenshot browser's and
 * the git runner's ports (and the runner's state folder inside the root) through drop-ins, as a
 * sysadmin would (the upgrade installs the units anew, not drop-ins).
 */
async function configureAgent(): Promise<void> {
  const envPath = path.join(agentRoot, 'etc/devplein/agent.env');
  const browserPort = await findFreePort();
  const gitRunnerPort = await findFreePort();
  const metricsPort = await findFreePort();
  agentHealthUrl = `http://127.0.0.1:${metricsPort}/healthz`;
  const text = (await readFile(envPath, 'utf8')).replace(/^([A-Z_]+)=(\/(?:etc\/devplein|var\/lib|opt\/devplein|run\/credentials)\/)/gm, `$1=${agentRoot}$2`);
  await writeFile(
    envPath,
    withSettings(text, {
      AGENT_LISTEN: `127.0.0.1:${await findFreePort()}`,
      AGENT_METRICS_LISTEN: `127.0.0.1:${metricsPort}`,
      AGENT_ACCESS_LOG_LISTEN: `127.0.0.1:${await findFreePort()}`,
      AGENT_BROWSER_SERVER: `127.0.0.1:${browserPort}`,
      AGENT_GIT_RUNNER: `http://127.0.0.1:${gitRunnerPort}`,
      AGENT_GIT_FIREWALL: 'off',
      AGENT_CADDY_ADMIN: 'http://127.0.0.1:1',
      AGENT_DOCKER_NETWORK: `devplein-upgrade-${process.pid}`,
      AGENT_WG_INTERFACE: `wgup${process.pid % 100_000}`,
      AGENT_WG_FIREWALL: 'off',
      AGENT_BROWSER_FIREWALL: 'off',
      AGENT_CONTAINER_FIREWALL: 'off',
      AGENT_IDLE_STOP_AFTER: '0',
      LOG_LEVEL: 'warn',
    }),
  );
  const dropIns = path.join(agentRoot, 'etc/systemd/system/devplein-browser.service.d');
  await mkdir(dropIns, { recursive: true });
  await writeFile(path.join(dropIns, 'port.conf'), `[Service]\nEnvironment=BROWSER_LISTEN=127.0.0.1:${browserPort}\n`);
  const gitDropIns = path.join(agentRoot, 'etc/systemd/system/devplein-git.service.d');
  await mkdir(gitDropIns, { recursive: true });
  await writeFile(
    path.join(gitDropIns, 'test.conf'),
    `[Service]\nEnvironment=GIT_RUNNER_LISTEN=127.0.0.1:${gitRunnerPort} GIT_RUNNER_STATE_DIR=${path.join(agentRoot, 'var/lib/devplein-git')}\n`,
  );
}

async function agentHealth(): Promise<{ code: number; status: unknown; agentVersion: unknown }> {
  const response = await fetch(agentHealthUrl);
  const body = (await response.json()) as { status?: unknown; agentVersion?: unknown };
  return { code: response.status, status: body.status, agentVersion: body.agentVersion };
}

const AGENT_UNITS = ['devplein-browser.service', 'devplein-git.service', 'devplein-agent.service'];

const transcripts: Record<string, string> = {};
let seeded: Record<string, number>;

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('install.sh upgrade runs as root (useradd, setpriv): run this test as root');
  oldVersion = (JSON.parse(await readFile(path.join(repo, 'package.json'), 'utf8')) as { version: string }).version;
  work = await mkdtemp(path.join(os.tmpdir(), 'devplein-upgrade-'));
  // The services run as their own users and must reach the root inside.
  await chmod(work, 0o755);
  bundles = path.join(work, 'bundles');
  await mkdir(bundles);
  // TEST_RELEASE_TARBALL: a devplein-<version>.tar.gz of this tree built before (`npm run release`), to repeat the test without building.
  const built = process.env.TEST_RELEASE_TARBALL;
  if (built) {
    await run('tar', ['-xzf', built, '-C', bundles]);
  } else {
    const out = path.join(work, 'release');
    await run('npm', ['run', '--silent', 'release', '--', '--out', out], { cwd: repo, env: { ...process.env, DEVPLEIN_RELEASE_KEY: '' }, maxBuffer: 16 * 1024 * 1024 });
    await run('tar', ['-xzf', path.join(out, `devplein-${oldVersion}.tar.gz`), '-C', bundles]);
    await rm(out, { recursive: true });
  }

  root = path.join(work, 'root');
  await makeRoot(root);
  await run(path.join(bundleDir(oldVersion), 'install.sh'), ['control-plane', '--root', root, '--packages=skip', '--no-start', '--unsigned'], { env: { PATH: SYSTEM_PATH, LANG: 'C.UTF-8' }, timeout: 60_000 });
  // A server of this test's own (createTestDatabase uses it), so a failure can show its log.
  postgres = await startPostgres();
  process.env.TEST_DATABASE_URL = postgres.url;
  database = await createTestDatabase();
  seeded = Object.fromEntries(Object.entries(await seedDemoData(database.knex)));
  const port = await findFreePort();
  healthUrl = `http://127.0.0.1:${port}/healthz`;
  await configure(port);
  for (const unit of ['devplein-soketi.service', 'devplein-control-plane.service']) await run(standIn, ['start', unit], { env: managerEnv(), timeout: 180_000 });
  await waitForHttp(healthUrl, { description: `the installed ${oldVersion} /healthz`, timeoutMs: 60_000 });

  // A dev server of its own: the agent role alone, in a second root.
  agentRoot = path.join(work, 'agent-root');
  await makeRoot(agentRoot);
  await run(path.join(bundleDir(oldVersion), 'install.sh'), ['agent', '--root', agentRoot, '--packages=skip', '--no-start', '--unsigned'], { env: { PATH: SYSTEM_PATH, LANG: 'C.UTF-8' }, timeout: 60_000 });
  await configureAgent();
  for (const unit of AGENT_UNITS) await run(standIn, ['start', unit], { env: managerEnv(agentRoot), timeout: 120_000 });
  await waitForHttp(agentHealthUrl, { description: `the installed agent ${oldVersion} /healthz`, timeoutMs: 60_000 });

  await makeBundle('0.1.1');
  await makeBundle('0.1.2', { file: 'control-plane/dist/db/migrate-cli.js', content: probe('migrate', "console.error('migratie 999_kapot mislukt (opzettelijk, test)'); process.exit(1);") });
  await makeBundle('0.1.3', { file: 'control-plane/dist/main.js', content: probe('start', "throw new Error('kapot bij de start (opzettelijk, test)');") });
  // 0.1.4's example env file has a setting more and one less than the installed one.
  await makeBundle('0.1.4', {
    file: 'deploy/systemd/devplein-control-plane.env',
    content: (text) => `${text.replace(/^TRUST_PROXY=.*\n/m, '')}# Nieuw in 0.1.4 (test).\nNIEUWE_INSTELLING=aan\n`,
  });
  await makeBundle('0.2.0', { file: 'host-agent/dist/bin/agent.js', content: "throw new Error('agent kapot bij de start (opzettelijk, test)');\n" });
}, 900_000);

afterAll(async () => {
  if (root) for (const unit of ['devplein-control-plane.service', 'devplein-soketi.service']) await run(standIn, ['stop', unit], { env: managerEnv() }).catch(() => undefined);
  if (agentRoot) for (const unit of [...AGENT_UNITS].reverse()) await run(standIn, ['stop', unit], { env: managerEnv(agentRoot) }).catch(() => undefined);
  await run('docker', ['network', 'rm', `devplein-upgrade-${process.pid}`]).catch(() => undefined);
  await database?.destroy();
  await postgres?.stop();
  if (work) await rm(work, { recursive: true, force: true });
  // The transcripts, for the operations notes.
  for (const [name, transcript] of Object.entries(transcripts)) console.log(`\n===== install.sh upgrade → ${name}\n${transcript}`);
}, 60_000);

describe('install.sh upgrade', () => {
  it('runs the installed version with the seeded rows first', async () => {
    expect(await current()).toBe(`releases/${oldVersion}`);
    expect(await servingRelease()).toBe(oldVersion);
    expect(seeded.users).toBeGreaterThan(5);
    expect((await rowCounts()).users).toBe(seeded.users);
  });

  it('a good upgrade keeps every row, dumps the database first and serves the new version', async () => {
    const before = await rowCounts();
    const result = await upgrade('0.1.1');
    transcripts['0.1.1 (goed)'] = result.output;
    expect(result.code, `${result.output}\n${result.code === 0 ? '' : await postgresState()}`).toBe(0);
    expect(await current()).toBe('releases/0.1.1');
    expect(await servingRelease()).toBe('0.1.1');
    expect((await healthStatus()).code).toBe(200);
    expect(await rowCounts()).toEqual(before);
    const dumps = await readdir(path.join(root, 'var/backups/devplein'));
    expect(dumps).toEqual([expect.stringMatching(new RegExp(`^${oldVersion.replaceAll('.', '\\.')}-before-0\\.1\\.1-\\d{8}T\\d{6}Z\\.dump$`))]);
    const dump = path.join(root, 'var/backups/devplein', dumps[0] ?? '');
    expect(((await stat(dump)).mode & 0o777).toString(8)).toBe('600');
    expect((await run('pg_restore', ['--list', dump])).stdout).toMatch(/TABLE DATA public users /);
    expect(result.output).toContain('devplein 0.1.1 draait (was 0.1.0)');
    expect(result.output).toMatch(/\/etc\/devplein\/control-plane\.env +ongewijzigd \(dezelfde instellingen als het voorbeeld van 0\.1\.1\)/);
  }, 300_000);

  it('the same version again changes nothing', async () => {
    const result = await upgrade('0.1.1');
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain('ongewijzigd');
    expect(await readdir(path.join(root, 'var/backups/devplein'))).toHaveLength(1);
    expect(await servingRelease()).toBe('0.1.1');
  }, 60_000);

  it.each([
    ['0.1.2', 'migrate', 'de migraties van 0.1.2 mislukten'],
    ['0.1.3', 'start', 'de control plane 0.1.3 startte niet'],
  ])('a broken %s (fails at %s) ends with 0.1.1 serving and the dump restored', async (version, _step, reason) => {
    const before = await rowCounts();
    const result = await upgrade(version);
    transcripts[`${version} (kapot)`] = result.output;
    const logPath = /Log van deze poging \(met de uitvoer van \S+\): (\S+)/.exec(result.output)?.[1] ?? '';
    const log = await readFile(path.join(root, logPath), 'utf8');
    expect(result.code, `${log}\n${result.code === 1 ? '' : await postgresState()}`).toBe(1);
    expect(result.output).toContain(`UPGRADE MISLUKT: ${reason}. Versie 0.1.1 draait weer en is gezond.`);
    expect(result.output).toMatch(new RegExp(`De database is teruggezet uit de dump van vóór de upgrade: /var/backups/devplein/0\\.1\\.1-before-${version.replaceAll('.', '\\.')}-\\S+\\.dump`));
    expect(log).toContain('opzettelijk, test');
    expect(await current()).toBe('releases/0.1.1');
    expect(await servingRelease()).toBe('0.1.1');
    expect((await healthStatus()).code).toBe(200);
    // The probe the broken version wrote after the dump is gone: the dump was restored.
    expect(await rowCounts()).toEqual(before);
    expect(before.upgrade_probe).toBeUndefined();
  }, 300_000);

  it('a later good upgrade lists the changed settings and keeps the last 3 releases (the previous one always) and the last dumps', async () => {
    const cpEnv = path.join(root, 'etc/devplein/control-plane.env');
    const settingsBefore = await readFile(cpEnv, 'utf8');
    const backups = path.join(root, 'var/backups/devplein');
    const dumpsBefore = await readdir(backups);
    expect(dumpsBefore).toHaveLength(3);
    const result = await upgrade('0.1.4', { DEVPLEIN_KEEP_DUMPS: '3' });
    transcripts['0.1.4 (goed, opruimen)'] = result.output;
    expect(result.code, `${result.output}\n${result.code === 0 ? '' : await postgresState()}`).toBe(0);
    expect(await servingRelease()).toBe('0.1.4');
    expect((await readdir(path.join(root, 'opt/devplein/releases'))).sort()).toEqual(['0.1.1', '0.1.3', '0.1.4']);
    // Listed before anything stopped, and the installed file left as the sysadmin wrote it.
    expect(result.output).toMatch(/control-plane\.env +nieuw in 0\.1\.4 \(NIEUWE_INSTELLING: niet gezet/);
    expect(result.output).toMatch(/control-plane\.env +niet in het voorbeeld van 0\.1\.4 \(TRUST_PROXY: /);
    expect(result.output.indexOf('nieuw in 0.1.4')).toBeLessThan(result.output.indexOf('gestopt'));
    expect(await readFile(cpEnv, 'utf8')).toBe(settingsBefore);
    // Four dumps now, the oldest (of the first upgrade) gone.
    const dumps = await readdir(backups);
    expect(dumps).toHaveLength(3);
    expect(dumps.filter((name) => name.startsWith(`${oldVersion}-before-0.1.1-`))).toEqual([]);
    expect(dumps.filter((name) => name.startsWith('0.1.1-before-0.1.4-'))).toHaveLength(1);
  }, 300_000);

  it('refuses an older version, and a root without a service manager, before touching anything', async () => {
    const older = await upgrade('0.1.3');
    expect(older.code, older.output).toBe(1);
    expect(older.output).toContain('versie 0.1.3 is ouder dan de geïnstalleerde 0.1.4');
    await makeBundle('0.1.5');
    const withoutManager = await run(path.join(bundleDir('0.1.5'), 'install.sh'), ['upgrade', '--unsigned', '--root', root], { env: { PATH: SYSTEM_PATH } }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code?: number; stderr?: string }) => ({ code: error.code, stderr: error.stderr ?? '' }),
    );
    expect(withoutManager.code).toBe(1);
    expect(withoutManager.stderr).toContain('systemd draait hier niet');
    expect(await current()).toBe('releases/0.1.4');
    expect(await servingRelease()).toBe('0.1.4');
    expect((await readdir(path.join(root, 'opt/devplein/releases'))).sort()).toEqual(['0.1.1', '0.1.3', '0.1.4']);
  }, 60_000);
});

describe('devplein upgrade <tarball> (the installed release checks it first)', () => {
  it('a signed 0.1.6: the signer added with release-signers, the tarball checked, the new upgrade.sh run from its private copy', async () => {
    const keyDir = path.join(work, 'release-key');
    await mkdir(keyDir);
    const key = path.join(keyDir, 'key');
    await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'release@school.test', '-f', key]);
    const [type, base64] = (await readFile(`${key}.pub`, 'utf8')).split(' ');
    await makeBundle('0.1.6');
    const download = path.join(work, 'download');
    await mkdir(download);
    const tarball = path.join(download, 'devplein-0.1.6.tar.gz');
    await packTarGz(bundleDir('0.1.6'), tarball, new Date());
    await writeChecksum(tarball);
    await signFile(tarball, key);
    const devplein = path.join(root, 'opt/devplein/current/bin/devplein');
    const before = (await current()).replace('releases/', '');
    await run(devplein, ['release-signers', '--root', root, 'add', `release@school.test ${type} ${base64}`], { env: managerEnv() });
    const result = await run(devplein, ['upgrade', '--root', root, tarball], { env: managerEnv(), timeout: 300_000, maxBuffer: 16 * 1024 * 1024 }).then(
      ({ stdout, stderr }) => ({ code: 0, output: `${stdout}${stderr}` }),
      (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: error.code, output: `${error.stdout ?? ''}${error.stderr ?? ''}` }),
    );
    transcripts['devplein upgrade 0.1.6 (ondertekend)'] = result.output;
    expect(result.code, `${result.output}\n${result.code === 0 ? '' : await postgresState()}`).toBe(0);
    expect(result.output).toContain('goed ondertekend door release@school.test');
    expect(result.output).toMatch(/uitgepakt in \S+\/opt\/devplein\/\.upgrade\.\w+; nu deploy\/upgrade\.sh van 0\.1\.6/);
    expect(result.output).toContain(`devplein 0.1.6 draait (was ${before})`);
    expect(await current()).toBe('releases/0.1.6');
    expect(await servingRelease()).toBe('0.1.6');
    expect((await healthStatus()).code).toBe(200);
    // The private copy is gone; the release it installed stays.
    expect((await readdir(path.join(root, 'opt/devplein'))).sort()).toEqual(['current', 'releases']);
    const releases = await readdir(path.join(root, 'opt/devplein/releases'));
    expect(releases).toContain(before);
    expect(releases).toContain('0.1.6');
    expect(releases.length).toBeLessThanOrEqual(3);
  }, 600_000);
});

describe('install.sh upgrade of a dev server (the agent role alone)', () => {
  it('runs the installed agent, its screenshot browser and its git runner, each as its own user', async () => {
    expect(await current(agentRoot)).toBe(`releases/${oldVersion}`);
    for (const unit of AGENT_UNITS) expect(await servingRelease(unit, agentRoot)).toBe(oldVersion);
    expect(await agentHealth()).toEqual({ code: 200, status: 'ok', agentVersion: oldVersion });
  });

  it('a good upgrade serves the new agent; no database, so no dump', async () => {
    const result = await upgrade('0.1.1', {}, agentRoot);
    transcripts['agent 0.1.1 (goed)'] = result.output;
    expect(result.code, result.output).toBe(0);
    expect(await current(agentRoot)).toBe('releases/0.1.1');
    for (const unit of AGENT_UNITS) expect(await servingRelease(unit, agentRoot)).toBe('0.1.1');
    // The version in /healthz is the bundle's package version: 0.1.1 is a copy of the 0.1.0 build.
    expect(await agentHealth()).toMatchObject({ code: 200, status: 'ok' });
    expect(result.output).toMatch(/\/etc\/devplein\/agent\.env +ongewijzigd/);
    expect(result.output).toContain('Dump van vóór de upgrade: geen (geen control plane)');
  }, 300_000);

  it('a newer agent that crashes at start ends with the previous agent serving', async () => {
    const result = await upgrade('0.2.0', {}, agentRoot);
    transcripts['agent 0.2.0 (kapot)'] = result.output;
    const logPath = /Log van deze poging \(met de uitvoer van \S+\): (\S+)/.exec(result.output)?.[1] ?? '';
    const log = await readFile(path.join(agentRoot, logPath), 'utf8');
    expect(result.code, log).toBe(1);
    expect(result.output).toContain('UPGRADE MISLUKT: de agent 0.2.0 startte niet. Versie 0.1.1 draait weer en is gezond.');
    expect(log).toContain('agent kapot bij de start (opzettelijk, test)');
    expect(await current(agentRoot)).toBe('releases/0.1.1');
    for (const unit of AGENT_UNITS) expect(await servingRelease(unit, agentRoot)).toBe('0.1.1');
    expect(await agentHealth()).toMatchObject({ code: 200, status: 'ok' });
  }, 300_000);
});
