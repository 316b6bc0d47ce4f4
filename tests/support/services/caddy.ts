/**
 * A throwaway Caddy (Debian's `caddy` 2.6) for tests: admin API and one HTTP server on free
 * loopback ports, the server named like the agent's default (`devplein`) with the catch-all 404
 * the agent expects. Config, data and autosave live in a temp dir; nothing outside it is touched.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CATCH_ALL_BODY, CATCH_ALL_ID } from '../../../host-agent/src/drivers/proxy/caddy-route.ts';
import { LineTail, forEachLine, isRunning, stopChild } from '../../../scripts/lib/processes.ts';
import { findFreePort, waitForHttp } from '../clients/ports.ts';

export interface TestCaddy {
  /** http://ADDRESS:PORT of the admin API (AGENT_CADDY_ADMIN); ADDRESS is 127.0.0.1 unless `listenAddress` was given. */
  adminUrl: string;
  /** Address the admin API and the HTTP server listen on (127.0.0.1 unless `listenAddress` was given). */
  address: string;
  /** Port of the HTTP server sites are reached on (send a Host header). */
  httpPort: number;
  /** Name of the HTTP server (AGENT_CADDY_SERVER). */
  serverName: string;
  /** Caddy's output so far. */
  output(): string;
  /** Stops Caddy and removes its temp dir; routes added through the admin API are gone (nothing is persisted). */
  stop(): Promise<void>;
  /** Starts Caddy again on the same ports with the initial config only (as after a crash). */
  start(): Promise<void>;
}

export interface StartCaddyOptions {
  serverName?: string;
  timeoutMs?: number;
  /**
   * Run Caddy inside this network namespace (`ip netns exec`, needs root), as a dev server in a
   * namespace runs its own. Its ports are then that namespace's: give `listenAddress` (an address
   * of the namespace the caller can reach), and the ports are 2019 and 80 unless given.
   */
  netns?: string;
  /** Address both the admin API and the HTTP server listen on; default 127.0.0.1. */
  listenAddress?: string;
  adminPort?: number;
  httpPort?: number;
}

/** Starts Caddy and waits until its admin API and HTTP server answer. */
export async function startCaddy(options: StartCaddyOptions = {}): Promise<TestCaddy> {
  const serverName = options.serverName ?? 'devplein';
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-caddy-'));
  const address = options.listenAddress ?? '127.0.0.1';
  // A namespace of its own has every port free; findFreePort only knows the root namespace's.
  const adminPort = options.adminPort ?? (options.netns ? 2019 : await findFreePort());
  const httpPort = options.httpPort ?? (options.netns ? 80 : await findFreePort());
  const adminUrl = `http://${address}:${adminPort}`;
  const configPath = path.join(workDir, 'caddy.json');
  const config = JSON.stringify({
    admin: { listen: `${address}:${adminPort}`, config: { persist: false } },
    logging: { logs: { default: { level: 'WARN' } } },
    apps: {
      http: {
        servers: {
          [serverName]: {
            listen: [`${address}:${httpPort}`],
            automatic_https: { disable: true },
            routes: [
              {
                '@id': CATCH_ALL_ID,
                handle: [{ handler: 'static_response', status_code: 404, body: CATCH_ALL_BODY }],
              },
            ],
          },
        },
      },
    },
  });

  const tail = new LineTail();
  let child: ChildProcess | undefined;

  async function start(): Promise<void> {
    if (child && isRunning(child)) return;
    await mkdir(workDir, { recursive: true });
    await writeFile(configPath, config);
    const caddyCommand = ['caddy', 'run', '--config', configPath];
    const [command = 'caddy', ...args] = options.netns ? ['ip', 'netns', 'exec', options.netns, ...caddyCommand] : caddyCommand;
    const process_ = spawn(command, args, {
      cwd: workDir,
      env: { ...process.env, HOME: workDir, XDG_CONFIG_HOME: path.join(workDir, 'config'), XDG_DATA_HOME: path.join(workDir, 'data') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = process_;
    let spawnError: Error | undefined;
    process_.once('error', (error) => {
      spawnError = error;
    });
    if (process_.stdout) forEachLine(process_.stdout, (line) => tail.push(line));
    if (process_.stderr) forEachLine(process_.stderr, (line) => tail.push(line));
    try {
      await waitForHttp(`${adminUrl}/config/`, {
        description: `Caddy's admin API on ${adminUrl}`,
        timeoutMs: options.timeoutMs ?? 20_000,
        giveUpIf: () => {
          if (spawnError) return `could not start caddy (apt-get install caddy): ${spawnError.message}`;
          if (!isRunning(process_)) return `caddy exited (code ${process_.exitCode ?? process_.signalCode})`;
          return undefined;
        },
      });
      await waitForHttp(`http://${address}:${httpPort}/`, { description: `Caddy's HTTP server on ${httpPort}`, accept: (status) => status === 404 });
    } catch (error) {
      await stopChild(process_, 2_000);
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(`${message}\n--- caddy output ---\n${tail.toString()}`, { cause: error });
    }
  }

  async function stopCaddy(): Promise<void> {
    if (child) await stopChild(child, 5_000);
    await rm(workDir, { recursive: true, force: true });
  }

  await start();
  return {
    adminUrl,
    address,
    httpPort,
    serverName,
    output: () => tail.toString(),
    start,
    stop: stopCaddy,
  };
}

// `npx tsx tests/support/services/caddy.ts`: start one, show it, stop it (a smoke test by hand).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const caddy = await startCaddy();
  console.log(`caddy ready: admin ${caddy.adminUrl}, http 127.0.0.1:${caddy.httpPort}`);
  await caddy.stop();
  console.log('caddy stopped');
}

/**
 * GET / on a Caddy HTTP server as a browser asking for `host` would (fetch cannot set Host).
 * Every route change makes Caddy load a new config and close the connections of the old one:
 * a kept-alive connection reused then ends in "socket hang up" (measured: 181 of 200 visits
 * right after a reload), and a new one can still be reset (1 of 200). So each visit takes a new
 * connection, and a connection reset before any answer is tried again on a new one, as a browser
 * does for a GET; an answer, whatever its status, is final.
 */
export async function visitSite(port: number, host: string, address = '127.0.0.1'): Promise<{ status: number; body: string }> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await getOnce(port, host, address);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (attempt >= 3 || (code !== 'ECONNRESET' && code !== 'EPIPE')) throw error;
    }
  }
}

function getOnce(port: number, host: string, address: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: address, port, path: '/', headers: { Host: host }, timeout: 5_000, agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('timeout', () => request.destroy(new Error(`GET ${host} timed out`)));
    request.on('error', reject);
  });
}
