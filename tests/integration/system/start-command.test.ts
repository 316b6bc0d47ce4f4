import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import mysql from 'mysql2/promise';
import { afterAll, describe, expect, it } from 'vitest';
import { visitSite } from '../../support/services/caddy.ts';
import { dockerCli } from '../../support/services/docker.ts';
import { HttpSession } from '../../support/clients/http-session.ts';
import { findFreePort, waitFor } from '../../support/clients/ports.ts';
import { cachedNodeDir } from '../../../scripts/lib/node-cache.ts';
import { serverNode, soketiNode } from '../../../scripts/lib/release/node-runtime.ts';

/**
 * The README's first command as a new user runs it: `npm start` on an empty data directory
 * (embedded PGlite, development certificates, soketi, the agent, the control plane), a sign-in
 * through the development provider, and Ctrl-C stopping all of it with exit code 0.
 * Ports and the data directory are the test's own so it never meets a running `npm start`.
 */
let child: ChildProcess | undefined;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'devplein-start-'));

/** A seeded 'Statische site' project: its container runs the demo image npm start makes. */
const demoProject = 'daan-portfolio';
const network = `devplein-start-${process.pid}`;
/** The VPN interface of this npm start (as root, wireguard-go): its own name, never the machine's. */
const wgInterface = `dvst${process.pid % 100_000}`;
const isRoot = process.getuid?.() === 0;

/** The wireguard-go daemons serving `iface` (it daemonizes: not a child of anything we started). */
const wireguardGoFor = (iface: string): string[] => {
  try {
    return execFileSync('pgrep', ['-f', `wireguard-go ${iface}$`], { encoding: 'utf8' }).split('\n').filter(Boolean);
  } catch {
    return [];
  }
};

afterAll(async () => {
  // After a failure npm start still runs. Its children (soketi, agent, control plane, MariaDB)
  // are in process groups of their own, so only the start script can stop them: SIGTERM to its
  // group first, as a closing terminal would, and SIGKILL only when it does not end in time.
  if (child?.pid && processGroupAlive(child.pid)) {
    const group = child.pid;
    try {
      process.kill(-group, 'SIGTERM');
      await waitFor(() => !processGroupAlive(group), { description: 'npm start to stop after the test', timeoutMs: 30_000 });
    } catch {
      try {
        process.kill(-group, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  // Its VPN interface, should npm start not have removed it (that ends its wireguard-go too).
  if (isRoot) {
    try {
      execFileSync('ip', ['link', 'delete', 'dev', wgInterface], { stdio: 'ignore' });
    } catch {
      // not there: the normal case
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
  await dockerCli(['rm', '-f', demoProject]).catch(() => undefined);
  await dockerCli(['network', 'rm', network]).catch(() => undefined);
});

/** Every process below `pid` (children of children too, detached ones included), with its binary and command line. */
function processesBelow(pid: number): Array<{ pid: number; exe: string; args: string }> {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of /proc/PID/stat, after the command name in parentheses (which may hold spaces).
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const found: Array<{ pid: number; exe: string; args: string }> = [];
  const queue = [...(children.get(pid) ?? [])];
  while (queue.length > 0) {
    const next = queue.shift()!;
    queue.push(...(children.get(next) ?? []));
    try {
      found.push({ pid: next, exe: readlinkSync(`/proc/${next}/exe`), args: readFileSync(`/proc/${next}/cmdline`, 'utf8').replaceAll('\0', ' ') });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

function processGroupAlive(group: number): boolean {
  try {
    process.kill(-group, 0);
    return true;
  } catch {
    return false;
  }
}

describe('npm start', () => {
  it('starts the whole system on the embedded default, signs a demo user in, and stops cleanly on Ctrl-C', async () => {
    const [port, realtimePort, agentPort, proxyPort, proxyAdminPort, mariadbPort, wgPort, phpMyAdminPort] = [
      await findFreePort(),
      await findFreePort(),
      await findFreePort(),
      await findFreePort(),
      await findFreePort(),
      await findFreePort(),
      await findFreePort(),
      await findFreePort(),
    ];
    const url = `http://localhost:${port}`;
    // phpMyAdmin's stand-in (Debian's package is not installed here): a folder PHP's built-in server serves.
    const phpMyAdminDir = path.join(dataDir, 'phpmyadmin');
    mkdirSync(phpMyAdminDir, { recursive: true });
    writeFileSync(path.join(phpMyAdminDir, 'index.php'), "<?php echo 'phpMyAdmin van npm start: ' . ($_GET['db'] ?? '');\n");
    let output = '';
    child = spawn('npm', ['start'], {
      cwd: path.resolve(import.meta.dirname, '../../..'),
      env: {
        ...process.env,
        PORT: String(port),
        REALTIME_PORT: String(realtimePort),
        AGENT_LISTEN: `127.0.0.1:${agentPort}`,
        PROXY_PORT: String(proxyPort),
        PROXY_ADMIN_PORT: String(proxyAdminPort),
        MARIADB_PORT: String(mariadbPort),
        DB_ADMIN_PORT: String(phpMyAdminPort),
        PHPMYADMIN_DIR: phpMyAdminDir,
        DB_ADMIN_URL: '',
        AGENT_WG_INTERFACE: wgInterface,
        AGENT_WG_LISTEN_PORT: String(wgPort),
        AGENT_DOCKER_NETWORK: network,
        SITE_DOMAIN: 'dev.devplein.test',
        DATA_DIR: dataDir,
        DATABASE_URL: '',
        APP_URL: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so the test can send Ctrl-C to the whole group as a terminal does.
      detached: true,
    });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    let exitCode: number | string | null | undefined;
    const exited = new Promise<void>((resolve) =>
      child?.once('exit', (code, signal) => {
        exitCode = code ?? signal;
        resolve();
      }),
    );

    await waitFor(() => output.includes('nieuw@devplein.test'), {
      description: 'the welcome text with the demo accounts',
      timeoutMs: 150_000,
      intervalMs: 250,
      giveUpIf: () => (exitCode !== undefined ? `npm start exited with ${exitCode}:\n${output}` : undefined),
    });
    expect(output).toContain(url);

    // The start script and every server it starts run on the bundle's Node 24, soketi on its Node 20.
    const serverBinary = path.join(cachedNodeDir(serverNode), 'bin', 'node');
    const soketiBinary = path.join(cachedNodeDir(soketiNode), 'bin', 'node');
    const running = processesBelow(child.pid!);
    const binaryOf = (marker: string): string[] => running.filter(({ args }) => args.includes(marker)).map(({ exe }) => exe);
    console.log(`npm start's processes:\n${running.map(({ pid, exe, args }) => `  ${pid} ${exe}: ${args.slice(0, 160)}`).join('\n')}`);
    expect(binaryOf('scripts/start.ts')).toContain(serverBinary);
    expect(binaryOf('control-plane/src/main.ts')).toEqual([serverBinary]);
    expect(binaryOf('host-agent/src/bin/agent.ts')).toEqual([serverBinary]);
    // soketi renames its process (process.title): its command line reads 'soketi-server'.
    expect(binaryOf('soketi-server')).toEqual([soketiBinary]);
    // npm test installed them: npm start finds every part of the main job (as root it would install what is missing).
    expect(output).toContain('system programs: ok');

    const health = (await (await fetch(`${url}/healthz`)).json()) as { database: string };
    expect(health.database).toBe('up');
    await waitFor(async () => ((await (await fetch(`${url}/healthz`)).json()) as { agent: { state: string } }).agent.state === 'reachable', {
      description: 'the agent reachable from the control plane',
      timeoutMs: 20_000,
    });

    const session = new HttpSession(url);
    const landing = await session.signIn('student@devplein.test');
    expect(landing.status).toBe(200);
    const me = await session.json<{ email: string }>('GET', '/api/user');
    expect(me.body.email).toBe('student@devplein.test');

    // A student site runs and is routed: the demo image, the agent, Docker and Caddy together.
    const admin = new HttpSession(url);
    await admin.signIn('admin@devplein.test');
    const projects = await admin.json<Array<{ id: number; name: string }>>('GET', '/api/admin/projects?all=true');
    const demo = projects.body.find((project) => project.name === demoProject);
    expect(demo).toBeDefined();
    const created = await admin.json<Array<{ State: string }>>('POST', '/api/user/dockers', { id: demo!.id });
    expect(created.status).toBe(200);
    expect(created.body[0]?.State).toBe('running');
    await waitFor(async () => (await visitSite(proxyPort, `${demoProject}.dev.devplein.test`)).status === 200, {
      description: 'Caddy to route the demo site',
      timeoutMs: 15_000,
    });
    expect((await visitSite(proxyPort, `${demoProject}.dev.devplein.test`)).body).toContain('Deze site draait op devplein');

    // The databases page says where npm start's own MariaDB answers, and a student following it connects.
    const developer = new HttpSession(url);
    await developer.signIn('ontwikkelaar@devplein.test');
    const page = await (await developer.raw('/databases')).text();
    const meta = (name: string) => new RegExp(`<meta name="${name}" content="([^"]*)"`).exec(page)?.[1];
    expect([meta('db-host'), meta('db-port')], output).toEqual(['127.0.0.1', String(mariadbPort)]);
    // phpMyAdmin on an origin of its own (its own loopback port), which the page links to.
    expect(meta('db-admin-url'), output).toBe(`http://127.0.0.1:${phpMyAdminPort}/`);
    const phpMyAdminPage = await fetch(`http://127.0.0.1:${phpMyAdminPort}/?db=u1_npm&link=true`);
    expect(await phpMyAdminPage.text()).toBe('phpMyAdmin van npm start: u1_npm');
    const made = await developer.json<Array<{ name: string; user: string; password: string; host: string; port: number }>>('POST', '/api/user/databases', { db: 'npm' });
    expect(made.status).toBe(200);
    const database = made.body.find((entry) => entry.name.endsWith('_npm'))!;
    expect([database.host, database.port]).toEqual(['127.0.0.1', mariadbPort]);
    const connection = await mysql.createConnection({ host: database.host, port: database.port, user: database.user, password: database.password, database: database.name });
    try {
      const [rows] = await connection.query('select database() as name');
      expect(rows).toEqual([{ name: database.name }]);
    } finally {
      await connection.end();
    }

    // A VPN configuration: as root the agent brings the interface up with wireguard-go, which
    // daemonizes (production keeps it over agent restarts on purpose); Ctrl-C must end it too.
    const vpn = await developer.api('POST', '/api/vpn');
    expect(vpn.status).toBe(200);
    if (isRoot) expect(wireguardGoFor(wgInterface)).toHaveLength(1);

    // Ctrl-C in a terminal sends SIGINT to the whole foreground process group.
    const group = child.pid as number;
    process.kill(-group, 'SIGINT');
    await exited;
    // npm itself may die of the SIGINT like any terminal program; what matters is that every
    // process it started (start script, soketi, agent, control plane) is gone, and said so.
    await waitFor(() => !processGroupAlive(group), { description: 'every npm start process to stop', timeoutMs: 30_000 });
    expect(output).toContain('stopping devplein');
    await waitFor(() => wireguardGoFor(wgInterface).length === 0, { description: `wireguard-go of ${wgInterface} to stop`, timeoutMs: 10_000 });
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  }, 200_000);
});
