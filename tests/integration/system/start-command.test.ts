import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { visitSite } from '../../support/caddy.ts';
import { dockerCli } from '../../support/docker.ts';
import { HttpSession } from '../../support/http-session.ts';
import { findFreePort, waitFor } from '../../support/ports.ts';

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

afterAll(async () => {
  // The whole process group, as a closed terminal would: nothing of this run outlives the test.
  if (child?.pid && child.exitCode === null) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
  await dockerCli(['rm', '-f', demoProject]).catch(() => undefined);
  await dockerCli(['network', 'rm', network]).catch(() => undefined);
});

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
    const [port, realtimePort, agentPort, proxyPort, proxyAdminPort] = [
      await findFreePort(),
      await findFreePort(),
      await findFreePort(),
      await findFreePort(),
      await findFreePort(),
    ];
    const url = `http://localhost:${port}`;
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

    // Ctrl-C in a terminal sends SIGINT to the whole foreground process group.
    const group = child.pid as number;
    process.kill(-group, 'SIGINT');
    await exited;
    // npm itself may die of the SIGINT like any terminal program; what matters is that every
    // process it started (start script, soketi, agent, control plane) is gone, and said so.
    await waitFor(() => !processGroupAlive(group), { description: 'every npm start process to stop', timeoutMs: 30_000 });
    expect(output).toContain('stopping devplein');
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  }, 200_000);
});
