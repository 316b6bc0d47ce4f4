import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findFreePort, waitFor } from '../clients/ports.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { seedDemoData } from '../../../control-plane/src/db/seed.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** The SESSION_SECRET of every control plane started here (it also signs what the control plane signs). */
export const TEST_SESSION_SECRET = 'test-session-secret-that-is-long-enough-0123456789';

export interface ControlPlaneOptions {
  databaseUrl: string;
  /** Extra environment (agent address and certificates, OIDC settings, ...). */
  env?: Record<string, string>;
  port?: number;
  /**
   * Run control-plane/dist/main.js (made by `npm run build:servers`) with plain node instead of
   * the sources through tsx: what production runs (benchmarks of memory use it).
   */
  compiled?: boolean;
  /** Extra node options before the entry (benchmarks: --cpu-prof, --heapsnapshot-signal). */
  nodeArgs?: string[];
}

export interface RunningControlPlane {
  url: string;
  port: number;
  /** Everything the process printed, for failure messages. */
  output: () => string;
  stop: () => Promise<void>;
  restart: () => Promise<void>;
  /** Sends SIGTERM and resolves with how the process ended (it is SIGKILLed after 30 s). */
  terminate: () => Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The process id while it runs (for memory readings in benchmarks). */
  pid: () => number | undefined;
}

/**
 * Starts the real control plane (control-plane/src/main.ts) as its own process on a free port,
 * as `npm start` would, and waits until /healthz answers.
 */
export async function startControlPlane(options: ControlPlaneOptions): Promise<RunningControlPlane> {
  const port = options.port ?? (await findFreePort());
  const url = `http://localhost:${port}`;
  let child: ChildProcess | null = null;
  let output = '';
  let exited: string | undefined;

  async function launch(): Promise<void> {
    exited = undefined;
    const entry = options.compiled ? ['control-plane/dist/main.js'] : ['--import', 'tsx', '--conditions=development', 'control-plane/src/main.ts'];
    child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...entry], {
      cwd: root,
      env: {
        ...process.env,
        NODE_ENV: 'test',
        PORT: String(port),
        HOST: '127.0.0.1',
        APP_URL: url,
        DATABASE_URL: options.databaseUrl,
        SESSION_SECRET: TEST_SESSION_SECRET,
        // The development sign-in; a test of the school provider's path sets OIDC_ISSUER and DEV_LOGIN ''.
        DEV_LOGIN: '1',
        AGENT_ADDRESS: 'localhost:1',
        AGENT_DEADLINE_MS: '1500',
        REALTIME_HOST: process.env.TEST_SOKETI_HOST ?? '127.0.0.1',
        REALTIME_PORT: process.env.TEST_SOKETI_PORT ?? '6001',
        REALTIME_APP_ID: process.env.TEST_SOKETI_APP_ID ?? 'devplein-app',
        REALTIME_KEY: process.env.TEST_SOKETI_KEY ?? 'devplein-key',
        REALTIME_SECRET: process.env.TEST_SOKETI_SECRET ?? 'devplein-secret',
        WEB_DIST: path.join(root, 'web/dist'),
        LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
        DATA_DIR: path.join(root, '.tmp', `cp-${port}`),
        // Parallel test processes must not race for the default metrics port: off unless a test asks.
        METRICS_LISTEN: '',
        // The overview's sampler would add HostStats and ListContainers calls to every fake agent's log: off unless a test asks.
        HOST_SAMPLE_CRON: 'off',
        // The school's git hosts of the tests' repository addresses (issue 23; empty would refuse every 'repro').
        GIT_ALLOWED_HOSTS: 'git.devplein.test,git.school.nl,localhost,127.0.0.1',
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const running = child;
    running.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    running.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    running.once('exit', (code, signal) => {
      exited = `exited with ${code ?? signal}`;
    });
    await waitFor(
      async () => {
        const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
        return response.status === 200 || response.status === 503;
      },
      {
        description: `control plane on port ${port}`,
        timeoutMs: 60_000,
        giveUpIf: () => (exited ? `${exited}\n${output}` : undefined),
      },
    );
  }

  async function stop(): Promise<void> {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => running.kill('SIGKILL'), 10_000);
      running.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      running.kill('SIGTERM');
    });
  }

  await launch();
  return {
    url,
    port,
    output: () => output,
    pid: () => (child as ChildProcess | null)?.pid,
    stop,
    terminate: () => {
      const running = child as ChildProcess | null;
      if (!running || running.exitCode !== null || running.signalCode !== null) return Promise.reject(new Error('the control plane is not running'));
      return new Promise((resolve) => {
        const timer = setTimeout(() => running.kill('SIGKILL'), 30_000);
        running.once('exit', (code, signal) => {
          clearTimeout(timer);
          resolve({ code, signal });
        });
        running.kill('SIGTERM');
      });
    },
    restart: async () => {
      await stop();
      await launch();
    },
  };
}

export interface SeededControlPlane {
  database: TestDatabase;
  app: RunningControlPlane;
  /** Stops the control plane and drops its database. */
  stop: () => Promise<void>;
}

/** A database of its own with the demo data, and the real control plane on it (for beforeAll). */
export async function startSeededControlPlane(options: Omit<ControlPlaneOptions, 'databaseUrl'> = {}): Promise<SeededControlPlane> {
  const database = await createTestDatabase();
  try {
    await seedDemoData(database.knex);
    const app = await startControlPlane({ ...options, databaseUrl: database.url });
    return {
      database,
      app,
      stop: async () => {
        await app.stop();
        await database.destroy();
      },
    };
  } catch (error) {
    await database.destroy();
    throw error;
  }
}
