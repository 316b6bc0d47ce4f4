/**
 * The browser server started by the agent itself, as the browser user (`setpriv`), for when no
 * systemd unit runs it: tests and `npm start` as root. Needs root (setpriv changes the user).
 *
 * The child gets a minimal environment (never the agent's: that holds the MariaDB admin URL),
 * a fresh random secret, loopback port 0, and exits when its stdin closes, so an agent that is
 * killed does not leave it behind. A server that dies is started again on the next launch.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';

/** The repository root: the nearest folder above this module that holds host-agent/package.json (sources or dist/). */
function repositoryRoot(from: string): string {
  let dir = path.dirname(from);
  while (!existsSync(path.join(dir, 'host-agent', 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

const here = fileURLToPath(import.meta.url);
const root = repositoryRoot(here);
// Built by `npm run build:servers`, the agent starts the built browser server with plain node;
// from its sources, the sources through tsx.
const command = here.endsWith('.js')
  ? [path.join(root, 'host-agent/dist/bin/browser-server.js')]
  : ['--import', 'tsx', '--conditions=development', path.join(root, 'host-agent/src/bin/browser-server.ts')];

export interface BrowserUser {
  name: string;
  uid: number;
  gid: number;
}

/** The user's uid and gid, or undefined when there is no such user. */
export function lookUpUser(name: string): BrowserUser | undefined {
  try {
    const line = execFileSync('getent', ['passwd', name], { encoding: 'utf8' }).trim();
    const [, , uid, gid] = line.split(':');
    return { name, uid: Number(uid), gid: Number(gid) };
  } catch {
    return undefined;
  }
}

export interface BrowserServerProcessOptions {
  user: BrowserUser;
  chromiumPath: string;
  logger: Logger;
  logLevel: string;
}

export class BrowserServerProcess {
  private child: ChildProcess | undefined;
  private starting: Promise<{ port: number; secret: string }> | undefined;
  private stopped = false;

  constructor(private readonly options: BrowserServerProcessOptions) {}

  /** The running server's port and secret; starts it when it does not run. */
  address(): Promise<{ port: number; secret: string }> {
    if (this.stopped) return Promise.reject(new Error('the browser server is stopped'));
    this.starting ??= this.start().catch((error: unknown) => {
      this.starting = undefined;
      throw error;
    });
    return this.starting;
  }

  /** Pid of the server process while it runs. */
  pid(): number | undefined {
    return this.child?.exitCode === null ? this.child.pid : undefined;
  }

  private start(): Promise<{ port: number; secret: string }> {
    const { user, logger } = this.options;
    const secret = randomBytes(32).toString('hex');
    const child = spawn(
      'setpriv',
      [
        `--reuid=${user.uid}`,
        `--regid=${user.gid}`,
        '--clear-groups',
        '--no-new-privs',
        '--inh-caps=-all',
        '--bounding-set=-all',
        '--',
        process.execPath,
        ...command,
      ],
      {
        cwd: root,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          LOG_LEVEL: this.options.logLevel,
          BROWSER_LISTEN: '127.0.0.1:0',
          BROWSER_SECRET: secret,
          BROWSER_CHROMIUM_PATH: this.options.chromiumPath,
          BROWSER_EXIT_WITH_STDIN: '1',
          TMPDIR: '/tmp',
        },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    this.child = child;
    return new Promise((resolve, reject) => {
      // Node with tsx compiles the server's sources first: seconds on a busy machine.
      const timer = setTimeout(() => {
        reject(new Error(`the browser server did not listen within 60 s: ${output.trim().slice(-2_000)}`));
        child.kill('SIGKILL');
      }, 60_000);
      let pending = '';
      let output = '';
      let listening = false;
      child.stdout?.on('data', (chunk: Buffer) => {
        pending += chunk.toString();
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) {
          let entry: { msg?: unknown; port?: unknown; level?: unknown } = {};
          try {
            entry = JSON.parse(line) as typeof entry;
          } catch {
            output += `${line}\n`;
            continue;
          }
          if (!listening && entry.msg === 'browser server listening' && typeof entry.port === 'number') {
            listening = true;
            clearTimeout(timer);
            logger.info({ port: entry.port, user: user.name, uid: user.uid, serverPid: child.pid }, 'screenshots: browser server started as its own user');
            resolve({ port: entry.port, secret });
          } else if (typeof entry.level === 'number' && entry.level >= 40) {
            logger.warn({ browserServer: entry }, 'screenshots: browser server');
          } else {
            logger.debug({ browserServer: entry }, 'screenshots: browser server');
          }
        }
      });
      child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        if (this.child === child) {
          this.child = undefined;
          this.starting = undefined;
        }
        if (!listening) reject(new Error(`the browser server exited with ${code ?? signal} before it listened: ${output.trim().slice(-2_000)}`));
        else if (!this.stopped) logger.warn({ code, signal }, 'screenshots: the browser server exited; the next capture starts it again');
      });
    });
  }

  /** Stops the server (SIGTERM: it closes its browsers), SIGKILL after 10 s. */
  async stop(): Promise<void> {
    this.stopped = true;
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}
