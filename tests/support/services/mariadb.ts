/**
 * A throwaway MariaDB server for tests: its own folder, socket and port (scripts/lib/mariadb.ts,
 * shared with `npm start`), never the machine's own server on 3306, optionally inside a network
 * namespace. The agent's admin account is made over the socket, as deploy/ tells a sysadmin to.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type mysql from 'mysql2/promise';
import { ensureAgentAccount, findMariaDbPrograms, initMariaDbDir, mariaDbLogTail, mariaDbServerArgs, mariaDbSocket, socketConnection } from '../../../scripts/lib/mariadb.ts';
import { findFreePort, waitFor } from '../clients/ports.ts';

export interface MariaDbOptions {
  /** Run inside this network namespace (`ip netns exec`). */
  netns?: string;
  /** Addresses to listen on, comma-separated (MariaDB ≥ 10.11); default 127.0.0.1. */
  bindAddress?: string;
  /** TCP port; default a free one. */
  port?: number;
  /** Host part of the admin account the agent uses; default 127.0.0.1. */
  adminHost?: string;
  /** Password of that account (so an agent can be configured before the server starts); default random. */
  adminPassword?: string;
}

export interface TestMariaDb {
  port: number;
  socket: string;
  /** The agent's admin account: mysql://devplein_agent:…@127.0.0.1:port/ (reachable where the server runs). */
  adminUrl: string;
  /** A root connection over the socket, for the test's own checks. */
  root(): Promise<mysql.Connection>;
  /** Stops the server (SIGTERM, then SIGKILL) without removing its files. */
  halt(): Promise<void>;
  /** Starts a halted server again on the same port and data. */
  resume(): Promise<void>;
  /** Stops the server and deletes its files. Safe to call twice. */
  stop(): Promise<void>;
}

export async function startMariaDb(options: MariaDbOptions = {}): Promise<TestMariaDb> {
  const programs = findMariaDbPrograms();
  if (!programs) throw new Error('MariaDB server programs (mariadbd, mariadb-install-db) not found: apt-get install mariadb-server');
  const dir = mkdtempSync(path.join(tmpdir(), 'devplein-mariadb-'));
  await initMariaDbDir(programs, dir);
  const port = options.port ?? (await findFreePort());
  const adminPassword = options.adminPassword ?? randomBytes(12).toString('hex');
  const args = mariaDbServerArgs({ dir, port, bindAddress: options.bindAddress });
  const [command, commandArgs] = options.netns ? ['ip', ['netns', 'exec', options.netns, programs.server, ...args]] : [programs.server, args];
  let child: ChildProcess | undefined;

  async function launch(): Promise<void> {
    let exited: string | undefined;
    let output = '';
    const started = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    started.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    started.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    started.once('exit', (code, signal) => (exited = `mariadbd exited with ${code ?? signal}`));
    await waitFor(
      async () => {
        const connection = await socketConnection(dir);
        await connection.end();
        return true;
      },
      {
        description: `the test MariaDB on port ${port}`,
        timeoutMs: 60_000,
        intervalMs: 100,
        giveUpIf: () => (exited ? `${exited}\n${output}\n${mariaDbLogTail(dir)}` : undefined),
      },
    );
  }

  async function halt(): Promise<void> {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGTERM');
    const kill = setTimeout(() => running.kill('SIGKILL'), 15_000);
    await gone;
    clearTimeout(kill);
  }

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      await halt();
      await rm(dir, { recursive: true, force: true });
    })();
    return stopping;
  };

  try {
    await launch();
    await ensureAgentAccount(dir, { user: 'devplein_agent', host: options.adminHost ?? '127.0.0.1', password: adminPassword });
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    port,
    socket: mariaDbSocket(dir),
    adminUrl: `mysql://devplein_agent:${adminPassword}@127.0.0.1:${port}/`,
    root: () => socketConnection(dir),
    halt,
    resume: launch,
    stop,
  };
}

/** Connections of `user` that are open (not being killed), as root sees them in the process list. */
export async function openConnectionsOf(mariadb: Pick<TestMariaDb, 'root'>, user: string): Promise<number> {
  const root = await mariadb.root();
  try {
    const [rows] = await root.query("SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE USER = ? AND COMMAND <> 'Killed'", [user]);
    return Number((rows as Array<{ n: number | string }>)[0]?.n);
  } finally {
    await root.end();
  }
}
