/**
 * The student's whole story, for real: a developer makes a database and a VPN configuration
 * through the API, takes the .conf home, and a MySQL client at home reaches the database
 * through the tunnel — and nothing else on the dev server, even after widening its own
 * AllowedIPs.
 *
 * Three network namespaces' worth of hosts on one machine:
 * - the root namespace: PostgreSQL and the control plane (as in every other test);
 * - "devhost": the host agent (gRPC over mTLS on a veth to the root namespace), the WireGuard
 *   server interface it manages, its firewall, and MariaDB listening on the tunnel address;
 * - "home": nothing but a veth link to devhost's public side, and what the student sets up
 *   from the downloaded file.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoData } from '../../control-plane/src/db/seed.ts';
import { makeTestCerts, startTestAgent, type TestAgent, agentLinkEnv } from '../support/agent.ts';
import { startControlPlane, type RunningControlPlane } from '../support/control-plane.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { HttpSession } from '../support/http-session.ts';
import { startMariaDb, type TestMariaDb } from '../support/mariadb.ts';
import { waitFor } from '../support/ports.ts';

const execFileAsync = promisify(execFile);
const run = (command: string, args: string[], timeout = 15_000) => execFileAsync(command, args, { timeout });
const inNs = (ns: string, command: string, args: string[], timeout?: number) => run('ip', ['netns', 'exec', ns, command, ...args], timeout);

const DEVELOPER = 'ontwikkelaar@devplein.test';
const tag = randomBytes(3).toString('hex');
/** Second octet per run, so two runs on one machine never share addresses. */
const net = 100 + (parseInt(tag, 16) % 100);
const devhost = `devhost-${tag}`;
const home = `home-${tag}`;
/** root ↔ devhost: the control plane's link to the agent. */
const control = { root: `10.${net}.1.1`, devhost: `10.${net}.1.2` };
/** devhost ↔ home: the dev server's public side, where WireGuard listens. */
const publicSide = { devhost: `10.${net}.2.1`, home: `10.${net}.2.2` };
/** The VPN pool; the server takes the first address. */
const pool = `10.${net}.8.0/24`;
const tunnelServer = `10.${net}.8.1`;
/** Another address of devhost that no peer may reach. */
const forbidden = `10.${net}.9.1`;
const wgServer = `dvs${tag}`;
const wgHome = `dvh${tag}`;
const wgPort = 51_000 + (parseInt(tag, 16) % 800);
const mysqlPort = 33_000 + (parseInt(tag, 16) % 900);
const adminPassword = randomBytes(12).toString('hex');

let workDir: string;
let database: TestDatabase;
let agent: TestAgent;
let app: RunningControlPlane;
let mariadb: TestMariaDb | undefined;
let homeWireguard: ChildProcess | undefined;
const cleanups: Array<() => Promise<unknown>> = [];

async function ignore(promise: Promise<unknown>): Promise<void> {
  await promise.catch(() => undefined);
}

beforeAll(async () => {
  workDir = mkdtempSync(path.join(os.tmpdir(), 'devplein-story-'));
  // Network: two namespaces and two veth pairs.
  for (const ns of [devhost, home]) {
    await run('ip', ['netns', 'add', ns]);
    cleanups.push(() => ignore(run('ip', ['netns', 'del', ns])));
    await inNs(ns, 'ip', ['link', 'set', 'lo', 'up']);
  }
  await run('ip', ['link', 'add', `vc${tag}`, 'type', 'veth', 'peer', 'name', `vcd${tag}`]);
  cleanups.push(() => ignore(run('ip', ['link', 'del', `vc${tag}`])));
  await run('ip', ['link', 'set', `vcd${tag}`, 'netns', devhost]);
  await run('ip', ['address', 'add', `${control.root}/30`, 'dev', `vc${tag}`]);
  await run('ip', ['link', 'set', `vc${tag}`, 'up']);
  await inNs(devhost, 'ip', ['address', 'add', `${control.devhost}/30`, 'dev', `vcd${tag}`]);
  await inNs(devhost, 'ip', ['link', 'set', `vcd${tag}`, 'up']);
  await run('ip', ['link', 'add', `vp${tag}`, 'type', 'veth', 'peer', 'name', `vph${tag}`]);
  await run('ip', ['link', 'set', `vp${tag}`, 'netns', devhost]);
  await run('ip', ['link', 'set', `vph${tag}`, 'netns', home]);
  await inNs(devhost, 'ip', ['address', 'add', `${publicSide.devhost}/30`, 'dev', `vp${tag}`]);
  await inNs(devhost, 'ip', ['link', 'set', `vp${tag}`, 'up']);
  await inNs(home, 'ip', ['address', 'add', `${publicSide.home}/30`, 'dev', `vph${tag}`]);
  await inNs(home, 'ip', ['link', 'set', `vph${tag}`, 'up']);
  await inNs(devhost, 'ip', ['address', 'add', `${forbidden}/32`, 'dev', 'lo']);

  // The agent in devhost, its certificate naming the address the control plane dials.
  const certs = await makeTestCerts(workDir, control.devhost);
  agent = await startTestAgent({
    certDir: workDir,
    netns: devhost,
    listenAddress: control.devhost,
    env: {
      AGENT_MYSQL_URL: `mysql://devplein_agent:${adminPassword}@127.0.0.1:${mysqlPort}/`,
      AGENT_MYSQL_USER_HOST: '%',
      AGENT_WG_INTERFACE: wgServer,
      AGENT_WG_LISTEN_PORT: String(wgPort),
      AGENT_WG_ENDPOINT: `${publicSide.devhost}:${wgPort}`,
      AGENT_WG_ADDRESS_POOL: pool,
      AGENT_WG_FIREWALL: 'iptables',
    },
  });
  cleanups.push(() => ignore(agent.stop()));
  cleanups.push(() => ignore(inNs(devhost, 'ip', ['link', 'del', wgServer])));

  database = await createTestDatabase();
  cleanups.push(() => ignore(database.destroy()));
  await seedDemoData(database.knex);
  app = await startControlPlane({
    databaseUrl: database.url,
    env: agentLinkEnv(agent.address, certs),
  });
  cleanups.push(() => ignore(app.stop()));
}, 180_000);

afterAll(async () => {
  homeWireguard?.kill('SIGTERM');
  await mariadb?.stop();
  for (const cleanup of cleanups.reverse()) await cleanup();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
}, 60_000);

interface DatabaseJson {
  id: number;
  name: string;
  user: string;
  password: string;
}

/** A MySQL client at home; its output, or the error it died with. */
async function mysqlFromHome(host: string, user: string, password: string, sql: string, databaseName?: string): Promise<{ ok: boolean; output: string }> {
  try {
    const { stdout } = await inNs(
      home,
      'mariadb',
      ['--no-defaults', `--host=${host}`, `--port=${mysqlPort}`, `--user=${user}`, `--password=${password}`, '--connect-timeout=3', '--batch', '--skip-column-names', ...(databaseName ? [databaseName] : []), `--execute=${sql}`],
      20_000,
    );
    return { ok: true, output: stdout };
  } catch (error) {
    return { ok: false, output: String((error as { stderr?: string }).stderr ?? error) };
  }
}

describe('a developer reaches their database from home through the VPN', { timeout: 180_000 }, () => {
  it('database + VPN through the API, the .conf applied at home, MySQL through the tunnel, nothing else reachable', async () => {
    const session = new HttpSession(app.url);
    expect((await session.signIn(DEVELOPER)).status).toBe(200);

    // 1. The VPN configuration (the agent brings up the server interface).
    await waitFor(async () => (await session.json('GET', '/api/vpn')).status === 200, { description: 'the control plane reaching the agent', timeoutMs: 30_000, intervalMs: 250 });
    const made = await session.json<{ identifier: string }>('POST', '/api/vpn');
    expect(made.status).toBe(200);
    const again = await session.json<{ identifier: string }>('POST', '/api/vpn');
    expect(again.body.identifier).toBe(made.body.identifier);
    const { stdout: peers } = await inNs(devhost, 'wg', ['show', wgServer, 'allowed-ips']);
    expect(peers.trim().split('\n')).toHaveLength(1);

    // 2. MariaDB on the dev server listens on the tunnel address (and on the forbidden one, so
    //    the only thing between home and it there is the firewall).
    mariadb = await startMariaDb({ netns: devhost, port: mysqlPort, adminPassword, bindAddress: `127.0.0.1,${tunnelServer},${forbidden}` });

    // 3. The database, through the API.
    const created = await session.json<DatabaseJson[]>('POST', '/api/user/databases', { db: 'abc' });
    expect(created.status).toBe(200);
    // Bad names never reach MariaDB: 422 with the field error, and nothing new on the server.
    const schemasNow = async (): Promise<string[]> => {
      const root = await mariadb!.root();
      try {
        const [rows] = await root.query('SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA ORDER BY 1');
        return (rows as Array<{ name: string }>).map((row) => row.name);
      } finally {
        await root.end();
      }
    };
    const before = await schemasNow();
    for (const bad of ['', 'abcd', '123', "a'b", 'a`b', 'é', '🙂', 'a b c d']) {
      const refused = await session.json<{ errors?: { db?: string[] } }>('POST', '/api/user/databases', { db: bad });
      expect(refused.status, JSON.stringify(bad)).toBe(422);
      expect(refused.body.errors?.db?.length).toBeGreaterThan(0);
    }
    expect(await schemasNow()).toEqual(before);
    const listed = await session.json<DatabaseJson[]>('GET', '/api/user/databases');
    const abc = listed.body.find((row) => row.name.endsWith('_abc'));
    expect(abc).toBeDefined();
    if (!abc) return;

    // 4. The .conf, downloaded and applied at home as wg-quick would: strip, setconf, address, routes.
    const download = await session.raw(`/api/vpn/${made.body.identifier}`);
    expect(download.status).toBe(200);
    const conf = await download.text();
    expect(conf).not.toContain('0.0.0.0/0');
    const address = /^Address\s*=\s*(\S+)/m.exec(conf)?.[1];
    const allowed = /^AllowedIPs\s*=\s*(.+)$/m.exec(conf)?.[1]?.split(',').map((part) => part.trim()) ?? [];
    expect(allowed).toEqual([`${tunnelServer}/32`]);
    const confPath = path.join(workDir, `${wgHome}.conf`);
    writeFileSync(confPath, conf, { mode: 0o600 });
    const { stdout: stripped } = await run('wg-quick', ['strip', confPath]);
    writeFileSync(path.join(workDir, 'stripped.conf'), stripped, { mode: 0o600 });
    homeWireguard = spawn('ip', ['netns', 'exec', home, 'wireguard-go', '--foreground', wgHome], { stdio: 'ignore' });
    await waitFor(() => inNs(home, 'wg', ['show', wgHome]).then(() => true, () => false), { description: 'the home WireGuard interface', timeoutMs: 10_000, intervalMs: 100 });
    await inNs(home, 'wg', ['setconf', wgHome, path.join(workDir, 'stripped.conf')]);
    await inNs(home, 'ip', ['address', 'add', address ?? '', 'dev', wgHome]);
    await inNs(home, 'ip', ['link', 'set', wgHome, 'up']);
    for (const network of allowed) await inNs(home, 'ip', ['route', 'add', network, 'dev', wgHome]);

    // 5. The student's MySQL client at home: through the tunnel, with the listed credentials.
    const work = await mysqlFromHome(
      tunnelServer,
      abc.user,
      abc.password,
      "CREATE TABLE notes (id INT PRIMARY KEY, text VARCHAR(40)); INSERT INTO notes VALUES (1, 'thuis gemaakt'); SELECT text FROM notes;",
      abc.name,
    );
    expect(work).toEqual({ ok: true, output: 'thuis gemaakt\n' });
    const { stdout: handshakes } = await inNs(devhost, 'wg', ['show', wgServer, 'latest-handshakes']);
    expect(Number(handshakes.trim().split(/\s+/)[1])).toBeGreaterThan(0);

    // 6. Without the tunnel's route the forbidden address is simply not routed; after widening
    //    its own AllowedIPs and adding the route, the server's firewall still drops it.
    const serverKey = /^PublicKey\s*=\s*(\S+)/m.exec(conf)?.[1] ?? '';
    await inNs(home, 'wg', ['set', wgHome, 'peer', serverKey, 'allowed-ips', `${tunnelServer}/32,${forbidden}/32`]);
    await inNs(home, 'ip', ['route', 'add', `${forbidden}/32`, 'dev', wgHome]);
    const sneaky = await mysqlFromHome(forbidden, abc.user, abc.password, 'SELECT 1;');
    expect(sneaky.ok).toBe(false);
    expect(sneaky.output).toMatch(/Can't connect|timed out|Lost connection/i);
    // ...while the allowed address still works over the same, widened tunnel.
    expect((await mysqlFromHome(tunnelServer, abc.user, abc.password, 'SELECT COUNT(*) FROM notes;', abc.name)).output).toBe('1\n');

    // 7. Dropping the database removes database and account: the client at home is refused.
    expect((await session.json('DELETE', `/api/user/databases/${abc.id}`)).status).toBe(200);
    const afterDrop = await mysqlFromHome(tunnelServer, abc.user, abc.password, 'SELECT 1;');
    expect(afterDrop.ok).toBe(false);
    expect(afterDrop.output).toMatch(/Access denied/);
  });
});
