/*
 * `npm start`: devplein on embedded defaults for someone who just cloned it.
 *
 * It runs itself, and with it every server and command it starts, on the release bundle's Node
 * (24, unpacked once into the machine's cache: scripts/lib/server-node.ts); soketi runs on the
 * Node 20 the bundle gives it. The machine's Node only starts this script.
 *
 *   0. as root on Debian, installs what the main job runs with and is missing (Docker engine,
 *      Caddy, MariaDB, Chromium, wireguard-go, static busybox, …) with apt-get, as `npm test`
 *      does; otherwise names what is missing, once, and runs without it;
 *   1. rebuilds native addons built for another Node (ssh2, cpu-features), and builds the web app
 *      when web/dist is missing or older than its sources;
 *   2. makes development mTLS certificates in data/certs when they are missing;
 *   3. migrates the database and seeds demo data into an empty one (PGlite in data/ unless
 *      DATABASE_URL is set);
 *   4. checks the Docker engine, starting dockerd (as root) when it is installed but not running
 *      (and Ctrl-C stops it again), and makes the demo image of the 'Statische site' option from
 *      Debian's static busybox when it is missing, so a student site runs without any registry);
 *   5. runs Caddy (admin on :2020, student sites on :8088), a private MariaDB for the students'
 *      databases (data/mariadb, :3307) and phpMyAdmin on an origin of its own
 *      (http://127.0.0.1:8081/, PHP's built-in server) when they are installed, soketi (:6001),
 *      the host agent (:7443) and the control plane (:8080) with their logs prefixed [proxy],
 *      [mysql], [pma], [soketi], [agent] and [web], and prints the URL and the demo accounts.
 *
 * Ctrl-C stops everything (SIGTERM, SIGKILL after 5 s), the VPN interface and its wireguard-go
 * included, and exits 0. When the agent or soketi
 * dies, that is reported and the rest keeps running; when the control plane dies, everything
 * stops and the exit code is non-zero. Settings come from the environment or a `.env` file
 * (see .env.example).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { createLinePrettifier, stripAnsi } from './lib/log-lines.ts';
import { forEachLine, isRunning, stopChild } from './lib/processes.ts';
import { findFreePort, waitFor } from './lib/net.ts';
import { formatDuration, heading, repoRoot, runCommand } from './lib/run.ts';
import { soketiLaunch } from './lib/soketi.ts';
import { rebuildNativeAddonsForThisNode } from './lib/native-addons.ts';
import { runOnServerNode } from './lib/server-node.ts';
import { buildWebIfStale } from './lib/stale-builds.ts';
import { BUSYBOX_BINARY, ensureBusyboxImage, hasLocalImage } from './lib/busybox-image.ts';
import { ensureSystemDependencies, findExecutable, isRoot, MissingSystemDependencies, startSystemDependencies } from './lib/system-programs.ts';
import { findPhpMyAdmin, phpMyAdminServerArgs, phpMyAdminUrl, type PhpMyAdminPrograms } from './lib/phpmyadmin.ts';
import { ensureAgentAccount, findMariaDbPrograms, initMariaDbDir, mariaDbLogTail, mariaDbServerArgs, socketConnection } from './lib/mariadb.ts';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdirSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';

// Everything below runs on the release bundle's Node (24), fetched once into the machine's cache.
await runOnServerNode();

const envFile = join(repoRoot, '.env');
if (existsSync(envFile)) process.loadEnvFile(envFile); // never overrides what the shell already set

const env = process.env;
const isTty = Boolean(process.stdout.isTTY);
const dataDir = resolve(repoRoot, env.DATA_DIR ?? 'data');
const certDir = join(dataDir, 'certs');
const webDist = resolve(repoRoot, env.WEB_DIST ?? 'web/dist');
const port = Number(env.PORT ?? 8080);
const appUrl = (env.APP_URL ?? `http://localhost:${port}`).replace(/\/$/, '');
const providerName = env.OIDC_PROVIDER_NAME ?? 'school';
const agentListen = env.AGENT_LISTEN ?? '127.0.0.1:7443';
const agentPort = Number(agentListen.slice(agentListen.lastIndexOf(':') + 1));
const realtime = {
  appId: env.REALTIME_APP_ID ?? 'devplein-app',
  key: env.REALTIME_KEY ?? 'devplein-key',
  secret: env.REALTIME_SECRET ?? 'devplein-secret',
  port: Number(env.REALTIME_PORT ?? 6001),
};
const proxyPort = Number(env.PROXY_PORT ?? 8088);
const proxyAdminPort = Number(env.PROXY_ADMIN_PORT ?? 2020);
const dockerSocket = env.AGENT_DOCKER_SOCKET ?? '/var/run/docker.sock';
const mariadbPort = Number(env.MARIADB_PORT ?? 3307);
/** phpMyAdmin's own loopback port: another origin than the control plane's. */
const phpMyAdminPort = Number(env.DB_ADMIN_PORT ?? 8081);
/** Not the machine's own wg0: the VPN of npm start (root with wireguard-go) has its own interface. */
const vpnInterface = env.AGENT_WG_INTERFACE ?? 'dvpl0';
const mariadbDir = join(dataDir, 'mariadb');
/** MariaDB from Debian's packages holds the students' databases; unless AGENT_MYSQL_URL names another server (looked up after the install step). */
let mariadbPrograms: ReturnType<typeof findMariaDbPrograms>;
/** The agent's admin URL of the private MariaDB, once it runs. */
let agentMysqlUrl = env.AGENT_MYSQL_URL;
/** Whether this script's own MariaDB runs (then the databases page names it: 127.0.0.1 and its port). */
let ownMariaDbRuns = false;
/** The image of the seeded 'Statische site' option (control-plane/src/db/seed.ts). */
const demoImage = 'devplein/static:latest';
const tsxNode = ['--import', 'tsx', '--conditions=development'];
const demoAccounts: Array<[email: string, role: string]> = [
  ['admin@devplein.test', 'admin and developer (first team: team 1)'],
  ['docent@devplein.test', 'admin (teacher), not a developer'],
  ['ontwikkelaar@devplein.test', 'developer, cohort SD22'],
  ['student@devplein.test', 'student, cohort SD23'],
  ['zonderklas@devplein.test', 'student without a group'],
  ['nieuw@devplein.test', 'not activated yet (lands on /not_verified)'],
];

class StartError extends Error {}

/** Caddy from Debian's packages routes the student sites; without it everything else still runs (looked up after the install step). */
let caddyInstalled = false;
let proxyStarted = false;
/** PHP and Debian's phpmyadmin package, when installed (looked up after the install step). */
let phpMyAdmin: PhpMyAdminPrograms | undefined;
/** Whether this script's phpMyAdmin runs (then the databases page links to it). */
let phpMyAdminStarted = false;

// ---------------------------------------------------------------------------------------------
// Preparation

/**
 * The operating system's part: as root on Debian, what is missing is installed with apt-get
 * (one update, one install). Not root, or no apt-get: one warning naming what is missing and the
 * command that installs it; the rest runs without it (each part's step below says what that means).
 */
function ensureSystemPrograms(): void {
  const log = (line: string): void => {
    // Present programs are the normal case: only what is missing or installed is worth a line.
    if (!line.startsWith('ok ') || line.endsWith('(installed)')) console.log(line);
  };
  try {
    ensureSystemDependencies(startSystemDependencies, { log });
    console.log('system programs: ok');
  } catch (error) {
    if (!(error instanceof MissingSystemDependencies)) throw error;
    console.log(`${error.message}\nnpm start goes on without them.`);
  }
  mariadbPrograms = env.AGENT_MYSQL_URL ? undefined : findMariaDbPrograms();
  caddyInstalled = findExecutable('caddy') !== undefined;
  // DB_ADMIN_URL given: that phpMyAdmin, not one of this script's.
  phpMyAdmin = env.DB_ADMIN_URL ? undefined : findPhpMyAdmin(env.PHPMYADMIN_DIR);
}

/** Builds web/dist when it is missing or older than its sources (scripts/lib/stale-builds.ts). */
async function buildWeb(): Promise<void> {
  if (!(await buildWebIfStale())) throw new StartError('building the web app failed');
}

const certFiles = ['ca.pem', 'agent.pem', 'agent-key.pem', 'control-plane.pem', 'control-plane-key.pem'];

async function makeCertificatesIfMissing(): Promise<void> {
  const missing = certFiles.filter((file) => !existsSync(join(certDir, file)));
  if (missing.length === 0) {
    console.log(`certificates present in ${certDir}`);
    return;
  }
  console.log(`making development certificates in ${certDir}`);
  const code = await runCommand('bash', [join(repoRoot, 'deploy', 'certs', 'make-certs.sh'), certDir]);
  if (code !== 0) throw new StartError('making the mTLS certificates failed (is openssl installed? apt-get install openssl)');
}

async function migrateAndSeed(): Promise<void> {
  const dbEnv = { ...env, DATA_DIR: dataDir };
  console.log(env.DATABASE_URL ? 'database: DATABASE_URL' : `database: embedded PGlite in ${join(dataDir, 'pglite')}`);
  if ((await runCommand(process.execPath, [...tsxNode, 'control-plane/src/db/migrate-cli.ts'], { env: dbEnv })) !== 0) {
    throw new StartError('database migration failed');
  }
  if (stopping) return;
  if ((await runCommand(process.execPath, [...tsxNode, 'control-plane/src/db/seed-cli.ts', '--if-empty'], { env: dbEnv })) !== 0) {
    throw new StartError('seeding demo data failed');
  }
}

/** Whether the Docker engine answers on its socket (GET /_ping). */
async function dockerAnswers(): Promise<boolean> {
  if (!existsSync(dockerSocket)) return false;
  const { request } = await import('node:http');
  return new Promise((resolvePromise) => {
    const probe = request({ socketPath: dockerSocket, path: '/_ping', timeout: 2_000 }, (response) => {
      response.resume();
      resolvePromise(response.statusCode === 200);
    });
    probe.once('error', () => resolvePromise(false));
    probe.once('timeout', () => probe.destroy());
    probe.end();
  });
}

/**
 * Docker: say clearly when it is missing (the app runs; containers then show as
 * 'onbereikbaar'), and make the demo image of 'Statische site' when it is not there yet.
 */
async function checkDocker(): Promise<void> {
  if (!(await dockerAnswers())) await startDockerdIfInstalled();
  if (!(await dockerAnswers())) {
    console.log(
      `The Docker engine does not answer on ${dockerSocket}: everything else runs, and containers show as 'onbereikbaar'.\n` +
        'Install and start it (Debian: apt-get install docker.io, then dockerd or systemctl start docker), then restart npm start.',
    );
    return;
  }
  if (await hasLocalImage(demoImage)) {
    console.log(`Docker engine: ok; demo image ${demoImage} present`);
    return;
  }
  if (!existsSync(BUSYBOX_BINARY)) {
    console.log(`Docker engine: ok; no ${demoImage} and no static busybox to make it (apt-get install busybox-static)`);
    return;
  }
  await ensureBusyboxImage(demoImage, ['/bin/httpd', '-f', '-p', '80', '-h', '/www'], async (rootfs) => {
    await writeFile(
      join(rootfs, 'www/index.html'),
      '<!doctype html><html lang="nl"><meta charset="utf-8"><title>devplein</title>' +
        '<h1>Deze site draait op devplein</h1><p>Zet je eigen bestanden in <code>/www</code>.</p></html>\n',
    );
  });
  console.log(`Docker engine: ok; made the demo image ${demoImage} (busybox httpd) for 'Statische site'`);
}

/**
 * Installed but not running (a fresh install, a machine without systemd): as root, npm start runs
 * dockerd itself, on the standard socket only (another AGENT_DOCKER_SOCKET is someone's own
 * engine), and Ctrl-C stops it with the rest.
 */
async function startDockerdIfInstalled(): Promise<void> {
  const dockerd = findExecutable('dockerd', ['/usr/sbin', '/usr/bin']);
  if (!dockerd || !isRoot() || dockerSocket !== '/var/run/docker.sock') return;
  console.log(`The Docker engine is installed but does not answer: starting ${dockerd}`);
  const engine = startProcess({ name: 'docker', command: dockerd, args: ['--host', `unix://${dockerSocket}`], env, onUnexpectedExit: 'report' });
  try {
    await waitFor(dockerAnswers, {
      description: `dockerd to answer on ${dockerSocket}`,
      timeoutMs: 60_000,
      intervalMs: 250,
      giveUpIf: () => (isRunning(engine.child) ? undefined : 'dockerd exited (see its lines above)'),
    });
  } catch (error) {
    console.log(`dockerd did not come up: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Fails early with a clear message instead of three processes fighting over a port. */
async function ensurePortFree(portNumber: number, what: string, variable: string): Promise<void> {
  const free = await new Promise<boolean>((resolvePromise) => {
    const probe = createServer();
    probe.once('error', () => resolvePromise(false));
    probe.listen({ host: '127.0.0.1', port: portNumber, exclusive: true }, () => probe.close(() => resolvePromise(true)));
  });
  if (!free) {
    throw new StartError(`port ${portNumber} (${what}) is already in use: is another \`npm start\` running? Stop it, or set ${variable}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Running the three processes

interface Managed {
  name: string;
  label: string;
  child: ChildProcess;
  /** What an unexpected exit means: 'fatal' stops everything, 'report' only says so. */
  onUnexpectedExit: 'fatal' | 'report';
}

const running: Managed[] = [];
let stopping = false;
let finish: (code: number) => void = () => undefined;
const finished = new Promise<number>((resolvePromise) => {
  finish = resolvePromise;
});

const colors: Record<string, string> = { web: '\x1b[36m', agent: '\x1b[35m', soketi: '\x1b[33m', proxy: '\x1b[32m', mysql: '\x1b[34m', pma: '\x1b[94m', docker: '\x1b[90m' };
const labelWidth = Math.max(...Object.keys(colors).map((name) => name.length)) + 2;

function labelFor(name: string): string {
  const plain = `[${name}]`.padEnd(labelWidth);
  return isTty ? `${colors[name] ?? ''}${plain}\x1b[0m` : plain;
}

function startProcess(options: {
  name: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  onUnexpectedExit: 'fatal' | 'report';
  /** Drop leading spaces (soketi indents its banner). */
  trimLines?: boolean;
}): Managed {
  const label = labelFor(options.name);
  const prettify = createLinePrettifier({ colorize: isTty });
  const child = spawn(options.command, options.args, {
    cwd: options.cwd ?? repoRoot,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Own process group: Ctrl-C reaches only this script, which stops the children in order.
    detached: true,
  });
  const print = (line: string): void => {
    const plain = isTty ? line : stripAnsi(line);
    const text = options.trimLines ? plain.trim() : plain.trimEnd();
    if (stripAnsi(text).trim() === '') return;
    for (const part of prettify(text).split('\n')) process.stdout.write(`${label} ${part}\n`);
  };
  forEachLine(child.stdout!, print);
  forEachLine(child.stderr!, print);
  const managed: Managed = { name: options.name, label, child, onUnexpectedExit: options.onUnexpectedExit };
  child.once('error', (error) => {
    process.stdout.write(`${label} could not start: ${error.message}\n`);
  });
  child.once('exit', (code, signal) => {
    if (stopping) return;
    const how = signal ? `was killed (${signal})` : `exited with code ${code}`;
    if (managed.onUnexpectedExit === 'fatal') {
      process.stdout.write(`${label} ${how}: stopping everything\n`);
      void stopAll(code && code !== 0 ? code : 1);
    } else {
      process.stdout.write(`${label} ${how}; the rest keeps running (restart \`npm start\` to bring it back)\n`);
    }
  });
  running.push(managed);
  return managed;
}

async function stopAll(exitCode: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  // The control plane first (it talks to the others), then the agent and soketi.
  // dockerd last: the agent's containers keep running in it until it stops them itself.
  const order = ['web', 'agent', 'soketi', 'pma', 'proxy', 'mysql', 'docker'];
  const inOrder = [...running].sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
  for (const managed of inOrder) {
    if (isRunning(managed.child)) process.stdout.write(`${managed.label} stopping\n`);
    // dockerd stops its containers first (10 s each by default): give it the time.
    await stopChild(managed.child, managed.name === 'docker' ? 45_000 : 5_000);
    if (managed.name === 'agent') removeVpnInterface();
  }
  finish(exitCode);
}

/**
 * The agent's WireGuard interface outlives it on purpose (students' tunnels survive an agent
 * restart in production), and without the kernel module it is a daemonized wireguard-go that no
 * process group holds. npm start's own interface goes with npm start: deleting the link ends
 * wireguard-go (its README's way to stop it).
 */
function removeVpnInterface(): void {
  if (process.getuid?.() !== 0) return;
  if (spawnSync('ip', ['link', 'show', 'dev', vpnInterface], { stdio: 'ignore' }).status !== 0) return;
  const removed = spawnSync('ip', ['link', 'delete', 'dev', vpnInterface], { encoding: 'utf8' });
  if (removed.status === 0) process.stdout.write(`${labelFor('agent')} removed the VPN interface ${vpnInterface}\n`);
  else process.stdout.write(`${labelFor('agent')} could not remove the VPN interface ${vpnInterface}: ${removed.stderr.trim()}\n`);
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    process.stdout.write(`\n${signal}: stopping devplein\n`);
    void stopAll(0);
  });
}

async function startSoketi(clusterPort: number, metricsPort: number): Promise<Managed> {
  const launch = await soketiLaunch({ ...realtime, clusterPort, metricsPort, shutdownGracePeriodMs: 1000 });
  return startProcess({
    name: 'soketi',
    command: launch.command,
    args: launch.args,
    cwd: launch.workDir,
    env: { ...env, ...launch.env },
    onUnexpectedExit: 'report',
    trimLines: true,
  });
}

/** Caddy with only its admin API on loopback: the agent creates the sites server itself. */
function startProxy(): Managed {
  const caddyDir = join(dataDir, 'caddy');
  mkdirSync(caddyDir, { recursive: true });
  const configPath = join(caddyDir, 'caddy.json');
  writeFileSync(configPath, JSON.stringify(
      {
        admin: { listen: `127.0.0.1:${proxyAdminPort}`, config: { persist: false } },
        // Caddy logs every admin request at INFO: only warnings and errors here.
        logging: { logs: { default: { level: 'WARN' } } },
      },
      null,
      2,
    ));
  return startProcess({
    name: 'proxy',
    command: 'caddy',
    args: ['run', '--config', configPath],
    env: { ...env, XDG_DATA_HOME: caddyDir, XDG_CONFIG_HOME: caddyDir },
    onUnexpectedExit: 'report',
  });
}

/**
 * The students' MariaDB in data/mariadb (made on first start), on loopback; the agent's admin
 * account gets a password kept in data/mariadb/agent-password. Without MariaDB installed the
 * databases page answers that the database server is not reachable.
 */
async function startStudentMariaDb(): Promise<void> {
  if (!mariadbPrograms) return;
  mkdirSync(mariadbDir, { recursive: true });
  await initMariaDbDir(mariadbPrograms, mariadbDir);
  const passwordFile = join(mariadbDir, 'agent-password');
  if (!existsSync(passwordFile)) writeFileSync(passwordFile, randomBytes(18).toString('base64url'), { mode: 0o600 });
  const password = readFileSync(passwordFile, 'utf8').trim();
  const server = startProcess({
    name: 'mysql',
    command: mariadbPrograms.server,
    args: mariaDbServerArgs({ dir: mariadbDir, port: mariadbPort }),
    env,
    onUnexpectedExit: 'report',
  });
  await waitFor(
    async () => {
      const connection = await socketConnection(mariadbDir);
      await connection.end();
      return true;
    },
    {
      description: `MariaDB on 127.0.0.1:${mariadbPort}`,
      timeoutMs: 60_000,
      intervalMs: 200,
      giveUpIf: () => (isRunning(server.child) ? undefined : `MariaDB stopped:\n${mariaDbLogTail(mariadbDir)}`),
    },
  );
  await ensureAgentAccount(mariadbDir, { user: 'devplein_agent', host: '127.0.0.1', password });
  agentMysqlUrl = `mysql://devplein_agent:${password}@127.0.0.1:${mariadbPort}/`;
  ownMariaDbRuns = true;
}

/**
 * phpMyAdmin on its own loopback port (scripts/lib/phpmyadmin.ts): its pages show what students
 * put in their tables, so never on the control plane's origin. Without PHP and phpMyAdmin the
 * databases page's link leads nowhere, which the welcome text says.
 */
function startPhpMyAdmin(): void {
  if (!phpMyAdmin) return;
  startProcess({ name: 'pma', command: phpMyAdmin.php, args: phpMyAdminServerArgs(phpMyAdmin, phpMyAdminPort), env, onUnexpectedExit: 'report' });
  phpMyAdminStarted = true;
}

/**
 * As root, the agent runs its screenshot browser as this unprivileged user with Chromium's
 * sandbox on (docs/operations.md, "The screenshot browser"); it is made here when missing. Not
 * root: the agent runs Chromium itself without the sandbox and logs a warning saying so.
 */
function ensureBrowserUser(): void {
  const user = env.AGENT_BROWSER_USER ?? 'devplein-browser';
  if (process.getuid?.() !== 0 || spawnSync('getent', ['passwd', user]).status === 0) return;
  const made = spawnSync('useradd', ['--system', '--user-group', '--home-dir', '/nonexistent', '--no-create-home', '--shell', '/usr/sbin/nologin', user], { encoding: 'utf8' });
  if (made.status === 0) console.log(`made the system user ${user} for the screenshot browser`);
  else console.log(`could not make the user ${user} (${made.stderr.trim()}): screenshots run inside the agent without Chromium's sandbox`);
}

function startAgent(): Managed {
  ensureBrowserUser();
  return startProcess({
    name: 'agent',
    command: process.execPath,
    args: [...tsxNode, 'host-agent/src/bin/agent.ts'],
    env: {
      ...env,
      AGENT_LISTEN: agentListen,
      AGENT_TLS_CA: join(certDir, 'ca.pem'),
      AGENT_TLS_CERT: join(certDir, 'agent.pem'),
      AGENT_TLS_KEY: join(certDir, 'agent-key.pem'),
      AGENT_DATA_DIR: env.AGENT_DATA_DIR ?? join(dataDir, 'agent'),
      AGENT_CADDY_ADMIN: env.AGENT_CADDY_ADMIN ?? `http://127.0.0.1:${proxyAdminPort}`,
      AGENT_CADDY_LISTEN: env.AGENT_CADDY_LISTEN ?? `127.0.0.1:${proxyPort}`,
      // On a laptop nothing is published beyond loopback.
      AGENT_SSH_BIND_ADDRESS: env.AGENT_SSH_BIND_ADDRESS ?? '127.0.0.1',
      ...(agentMysqlUrl ? { AGENT_MYSQL_URL: agentMysqlUrl } : {}),
      AGENT_SITE_DOMAIN: env.AGENT_SITE_DOMAIN ?? env.SITE_DOMAIN ?? 'dev.devplein.test',
      AGENT_SCREENSHOT_PROXY: env.AGENT_SCREENSHOT_PROXY ?? `127.0.0.1:${proxyPort}`,
      AGENT_WG_INTERFACE: vpnInterface,
    },
    onUnexpectedExit: 'report',
  });
}

function startControlPlane(): Managed {
  // Both processes read AGENT_TLS_* (each its own files), so npm start always sets them from
  // the development certificates rather than passing one .env value to both.
  return startProcess({
    name: 'web',
    command: process.execPath,
    args: [...tsxNode, 'control-plane/src/main.ts'],
    env: {
      ...env,
      PORT: String(port),
      // The development sign-in with the demo accounts, unless a school provider is configured.
      DEV_LOGIN: env.DEV_LOGIN ?? (env.OIDC_ISSUER ? '' : '1'),
      DATA_DIR: dataDir,
      WEB_DIST: webDist,
      // Git deploy (issue 23) is off without a list of allowed git hosts: the demo allows the
      // public ones and the demo data's git.devplein.test, so the request form takes an address.
      GIT_ALLOWED_HOSTS: env.GIT_ALLOWED_HOSTS ?? 'github.com,gitlab.com,codeberg.org,git.devplein.test',
      AGENT_ADDRESS: `localhost:${agentPort}`,
      AGENT_TLS_CA: join(certDir, 'ca.pem'),
      AGENT_TLS_CERT: join(certDir, 'control-plane.pem'),
      AGENT_TLS_KEY: join(certDir, 'control-plane-key.pem'),
      REALTIME_APP_ID: realtime.appId,
      REALTIME_KEY: realtime.key,
      REALTIME_SECRET: realtime.secret,
      REALTIME_HOST: env.REALTIME_HOST ?? '127.0.0.1',
      REALTIME_PORT: String(realtime.port),
      // The databases page tells students where their databases answer: here, this script's MariaDB.
      ...(ownMariaDbRuns ? { STUDENT_DB_HOST: env.STUDENT_DB_HOST ?? '127.0.0.1', STUDENT_DB_PORT: env.STUDENT_DB_PORT ?? String(mariadbPort) } : {}),
      // The databases page links to this script's phpMyAdmin, on its own origin.
      ...(phpMyAdminStarted ? { DB_ADMIN_URL: phpMyAdminUrl(phpMyAdminPort) } : {}),
    },
    onUnexpectedExit: 'fatal',
  });
}

interface Health {
  status?: string;
  agent?: { state?: string };
}

async function readHealth(): Promise<Health | undefined> {
  const response = await fetch(`http://localhost:${port}/healthz`, { signal: AbortSignal.timeout(2_000) });
  try {
    return (await response.json()) as Health;
  } catch {
    return {};
  }
}

async function waitUntilServing(controlPlane: Managed): Promise<Health | undefined> {
  await waitFor(async () => (await readHealth()) !== undefined, {
    description: `the control plane at http://localhost:${port}/healthz`,
    timeoutMs: 180_000,
    intervalMs: 250,
    giveUpIf: () => (isRunning(controlPlane.child) ? (stopping ? 'stopping' : undefined) : 'the control plane exited'),
  });
  // The agent link settles within a few seconds; say how it went instead of "unknown".
  let health = await readHealth().catch(() => undefined);
  for (let tries = 0; tries < 20 && health?.agent?.state === 'unknown' && !stopping; tries += 1) {
    await delay(250);
    health = await readHealth().catch(() => undefined);
  }
  return health;
}

function printWelcome(health: Health | undefined): void {
  const bold = (text: string): string => (isTty ? `\x1b[1m${text}\x1b[0m` : text);
  const width = Math.max(...demoAccounts.map(([email]) => email.length));
  const lines = [
    '',
    bold(`devplein is running: ${appUrl}`),
    '',
    `Demo accounts (development sign-in at ${appUrl}/login, no password):`,
    ...demoAccounts.map(([email, role]) => `  ${email.padEnd(width)}  ${role}`),
    '',
    'Sign in without a form (scripts, tests):',
    `  ${appUrl}/auth/${providerName}?login_hint=student@devplein.test`,
    '',
    `Realtime (soketi) on 127.0.0.1:${realtime.port}, host agent on ${agentListen} (mTLS, certificates in ${certDir}).`,
    proxyStarted
      ? `Student sites through Caddy on http://127.0.0.1:${proxyPort} (by host name: curl -H 'Host: NAME.${env.SITE_DOMAIN ?? 'dev.devplein.test'}' http://127.0.0.1:${proxyPort}/).`
      : 'Caddy is not installed (apt-get install caddy): containers run, but no site is routed.',
    agentMysqlUrl
      ? `Student databases: ${env.AGENT_MYSQL_URL ? 'the MySQL server of AGENT_MYSQL_URL' : `MariaDB in ${mariadbDir} on 127.0.0.1:${mariadbPort}`}.`
      : mariadbPrograms
        ? 'MariaDB did not start (see above): the databases page says the database server is not reachable.'
        : 'MariaDB is not installed (apt-get install mariadb-server): the databases page says the database server is not reachable.',
    env.DB_ADMIN_URL
      ? `Database administration: ${env.DB_ADMIN_URL}.`
      : phpMyAdminStarted
        ? `phpMyAdmin on its own origin: ${phpMyAdminUrl(phpMyAdminPort)} (the machine's settings in /etc/phpmyadmin; sign in with the user and password the databases page shows).`
        : 'phpMyAdmin is not installed (apt-get install phpmyadmin php-cli): the databases page\'s Beheren link leads nowhere.',
    `Health: ${health?.status ?? 'unknown'}; agent ${health?.agent?.state ?? 'unknown'} (details: ${appUrl}/healthz).`,
    'Press Ctrl-C to stop.',
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Thrown after a preparation step when Ctrl-C came during it. */
class Interrupted extends Error {}

/** Preparation steps run in the foreground; Ctrl-C during one ends `npm start` quietly after it. */
async function prepare(title: string, work: () => Promise<void>): Promise<void> {
  console.log(heading(title));
  await work();
  if (stopping) throw new Interrupted();
}

async function main(): Promise<number> {
  const started = performance.now();
  await prepare('System programs', async () => ensureSystemPrograms());
  await prepare('Checking ports', async () => {
    await ensurePortFree(port, 'control plane', 'PORT');
    await ensurePortFree(realtime.port, 'soketi', 'REALTIME_PORT');
    await ensurePortFree(agentPort, 'host agent', 'AGENT_LISTEN');
    if (mariadbPrograms) await ensurePortFree(mariadbPort, 'student databases (MariaDB)', 'MARIADB_PORT');
    if (phpMyAdmin) await ensurePortFree(phpMyAdminPort, 'phpMyAdmin', 'DB_ADMIN_PORT');
    if (caddyInstalled) {
      await ensurePortFree(proxyPort, 'student sites (Caddy)', 'PROXY_PORT');
      await ensurePortFree(proxyAdminPort, 'Caddy admin API', 'PROXY_ADMIN_PORT');
    }
    console.log(`free: ${[port, realtime.port, agentPort, ...(caddyInstalled ? [proxyPort, proxyAdminPort] : [])].join(', ')}`);
  });
  await prepare(`Native addons for Node ${process.versions.node}`, async () => void (await rebuildNativeAddonsForThisNode(repoRoot)));
  await prepare('Web app', buildWeb);
  await prepare('Certificates for the agent link', makeCertificatesIfMissing);
  await prepare('Database', migrateAndSeed);
  await prepare('Docker engine', checkDocker);

  console.log(heading(`Starting ${caddyInstalled ? 'Caddy, ' : ''}soketi, the host agent and the control plane`));
  if (caddyInstalled) {
    startProxy();
    proxyStarted = true;
  }
  await startSoketi(await findFreePort(), await findFreePort());
  try {
    await startStudentMariaDb();
  } catch (error) {
    console.log(`MariaDB for the student databases did not start (${error instanceof Error ? error.message : String(error)}); the rest runs without it.`);
  }
  startPhpMyAdmin();
  startAgent();
  const controlPlane = startControlPlane();
  try {
    const health = await waitUntilServing(controlPlane);
    if (!stopping) {
      printWelcome(health);
      console.log(`(ready in ${formatDuration(performance.now() - started)})`);
    }
  } catch (error) {
    if (!stopping) {
      console.error(error instanceof Error ? error.message : String(error));
      await stopAll(1);
    }
  }
  return finished;
}

let exitCode: number;
try {
  exitCode = await main();
} catch (error) {
  if (stopping) {
    // Ctrl-C while preparing: whatever the interrupted step said, this is a normal stop.
    exitCode = await finished;
  } else {
    console.error(`\nnpm start failed: ${error instanceof Error ? error.message : String(error)}`);
    if (!(error instanceof StartError) && error instanceof Error && error.stack) console.error(error.stack);
    await stopAll(1);
    exitCode = 1;
  }
}
process.exit(exitCode);
