import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HttpSession } from '../support/http-session.ts';
import { findFreePort, waitFor } from '../support/ports.ts';

/**
 * The README's first command as a new user runs it: `npm start` on an empty data directory
 * (embedded PGlite, development certificates, soketi, the agent, the control plane), a sign-in
 * through the development provider, and Ctrl-C stopping all of it with exit code 0.
 * Ports and the data directory are the test's own so it never meets a running `npm start`.
 */
let child: ChildProcess | undefined;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'devplein-start-'));

afterAll(() => {
  // The whole process group, as a closed terminal would: nothing of this run outlives the test.
  if (child?.pid && child.exitCode === null) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
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
    const [port, realtimePort, agentPort] = [await findFreePort(), await findFreePort(), await findFreePort()];
    const url = `http://localhost:${port}`;
    let output = '';
    child = spawn('npm', ['start'], {
      cwd: path.resolve(import.meta.dirname, '../..'),
      env: {
        ...process.env,
        PORT: String(port),
        REALTIME_PORT: String(realtimePort),
        AGENT_LISTEN: `127.0.0.1:${agentPort}`,
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
