/**
 * A dev server and a student's home on one machine, for the stories that need the real VPN:
 * - the root namespace: PostgreSQL and the control plane (as in every other test);
 * - "devhost": the host agent (gRPC over mTLS on a veth to the root namespace), the WireGuard
 *   server interface it manages, its firewall, and (once started) MariaDB on the tunnel address;
 * - "home": nothing but a veth link to devhost's public side, and what the student sets up
 *   from the downloaded .conf (applyConfAtHome).
 * Addresses differ per run (a random tag), so two runs on one machine never meet. Needs root,
 * wireguard-go, wg, wg-quick, ip and iptables; MariaDB's client in the home namespace.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { agentLinkEnv, makeTestCerts, startTestAgent, type TestAgent } from '../services/agent.ts';
import { startMariaDb, type TestMariaDb } from '../services/mariadb.ts';
import { inNetns } from '../services/wireguard.ts';

const execFileAsync = promisify(execFile);
const run = (command: string, args: string[], timeout = 15_000) => execFileAsync(command, args, { timeout });
export const inNs = (ns: string, command: string, args: string[], timeout?: number) => run('ip', ['netns', 'exec', ns, command, ...args], timeout);

export interface DevHost {
  workDir: string;
  devhost: string;
  home: string;
  /** Where the control plane reaches the agent (root ↔ devhost). */
  control: { root: string; devhost: string };
  /** devhost's public side, where WireGuard listens, and home's end of that link. */
  publicSide: { devhost: string; home: string };
  /** The VPN pool and the server's own tunnel address (MariaDB listens there). */
  pool: string;
  tunnelServer: string;
  /** An address of devhost no peer may reach. */
  forbidden: string;
  wgServer: string;
  /** The home WireGuard interface applyConfAtHome makes. */
  wgHome: string;
  mysqlPort: number;
  agent: TestAgent;
  /** Environment for startControlPlane: the agent link and its certificates. */
  controlPlaneEnv: Record<string, string>;
  /** MariaDB in devhost on 127.0.0.1, the tunnel address and the forbidden one (start it once the tunnel address exists). */
  startMariaDb(): Promise<TestMariaDb>;
  /** Applies a downloaded client .conf at home as wg-quick would (strip, setconf, address, routes). */
  applyConfAtHome(conf: string): Promise<void>;
  /** A MySQL client at home: its output, or the error it died with. */
  mysqlFromHome(host: string, user: string, password: string, sql: string, databaseName?: string): Promise<{ ok: boolean; output: string }>;
  /** Everything in reverse order, each step even when one before failed. */
  stop(): Promise<void>;
}

/** The namespaces, links and the agent in devhost (extra agent environment in `agentEnv`). */
export async function startDevHost(options: { agentEnv?: Record<string, string> } = {}): Promise<DevHost> {
  const tag = randomBytes(3).toString('hex');
  // Second octet per run, so two runs on one machine never share addresses.
  const net = 100 + (parseInt(tag, 16) % 100);
  const devhost = `devhost-${tag}`;
  const home = `home-${tag}`;
  const control = { root: `10.${net}.1.1`, devhost: `10.${net}.1.2` };
  const publicSide = { devhost: `10.${net}.2.1`, home: `10.${net}.2.2` };
  const tunnelServer = `10.${net}.8.1`;
  const forbidden = `10.${net}.9.1`;
  const wgServer = `dvs${tag}`;
  const wgHome = `dvh${tag}`;
  const wgPort = 51_000 + (parseInt(tag, 16) % 800);
  const mysqlPort = 33_000 + (parseInt(tag, 16) % 900);
  const adminPassword = randomBytes(12).toString('hex');
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'devplein-devhost-'));
  const cleanups: Array<() => Promise<unknown>> = [async () => rmSync(workDir, { recursive: true, force: true })];
  const ignore = (promise: Promise<unknown>) => promise.catch(() => undefined);
  let mariadb: TestMariaDb | undefined;
  let homeWireguard = false;
  const stop = async () => {
    // Deleting the link ends wireguard-go (a deleted namespace alone would keep it running).
    if (homeWireguard) await ignore(inNs(home, 'ip', ['link', 'del', wgHome]));
    await mariadb?.stop();
    for (const cleanup of cleanups.reverse()) await ignore(cleanup());
  };

  try {
    for (const ns of [devhost, home]) {
      await run('ip', ['netns', 'add', ns]);
      cleanups.push(() => run('ip', ['netns', 'del', ns]));
      await inNs(ns, 'ip', ['link', 'set', 'lo', 'up']);
    }
    await run('ip', ['link', 'add', `vc${tag}`, 'type', 'veth', 'peer', 'name', `vcd${tag}`]);
    cleanups.push(() => run('ip', ['link', 'del', `vc${tag}`]));
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
    const agent = await startTestAgent({
      certDir: workDir,
      netns: devhost,
      listenAddress: control.devhost,
      env: {
        AGENT_MYSQL_URL: `mysql://devplein_agent:${adminPassword}@127.0.0.1:${mysqlPort}/`,
        AGENT_MYSQL_USER_HOST: '%',
        AGENT_WG_INTERFACE: wgServer,
        AGENT_WG_LISTEN_PORT: String(wgPort),
        AGENT_WG_ENDPOINT: `${publicSide.devhost}:${wgPort}`,
        AGENT_WG_ADDRESS_POOL: `10.${net}.8.0/24`,
        AGENT_WG_FIREWALL: 'iptables',
        // This MariaDB listens on its own port, not 3306: the tunnel must admit that one.
        AGENT_WG_FIREWALL_ALLOW: `tcp/${mysqlPort}`,
        ...options.agentEnv,
      },
    });
    cleanups.push(() => agent.stop());
    cleanups.push(() => inNs(devhost, 'ip', ['link', 'del', wgServer]));

    return {
      workDir,
      devhost,
      home,
      control,
      publicSide,
      pool: `10.${net}.8.0/24`,
      tunnelServer,
      forbidden,
      wgServer,
      wgHome,
      mysqlPort,
      agent,
      controlPlaneEnv: agentLinkEnv(agent.address, certs),
      async startMariaDb() {
        mariadb = await startMariaDb({ netns: devhost, port: mysqlPort, adminPassword, bindAddress: `127.0.0.1,${tunnelServer},${forbidden}` });
        return mariadb;
      },
      async applyConfAtHome(conf) {
        const address = /^Address\s*=\s*(\S+)/m.exec(conf)?.[1];
        const allowed = /^AllowedIPs\s*=\s*(.+)$/m.exec(conf)?.[1]?.split(',').map((part) => part.trim()) ?? [];
        const confPath = path.join(workDir, `${wgHome}.conf`);
        writeFileSync(confPath, conf, { mode: 0o600 });
        const { stdout: stripped } = await run('wg-quick', ['strip', confPath]);
        writeFileSync(path.join(workDir, 'stripped.conf'), stripped, { mode: 0o600 });
        // As wg-quick does: wireguard-go daemonizes once the interface and its UAPI socket exist,
        // or exits with its reason, which inNetns puts in the test's failure (and it unsets
        // LOG_LEVEL, which would keep the daemon on our pipes).
        await inNetns(home, 'wireguard-go', [wgHome], 30_000);
        homeWireguard = true;
        await inNs(home, 'wg', ['setconf', wgHome, path.join(workDir, 'stripped.conf')]);
        await inNs(home, 'ip', ['address', 'add', address ?? '', 'dev', wgHome]);
        await inNs(home, 'ip', ['link', 'set', wgHome, 'up']);
        for (const network of allowed) await inNs(home, 'ip', ['route', 'add', network, 'dev', wgHome]);
      },
      async mysqlFromHome(host, user, password, sql, databaseName) {
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
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
