import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { soketiLaunch } from '../../../scripts/lib/soketi.ts';
import { LineTail, forEachLine, isRunning, stopChild } from '../../../scripts/lib/processes.ts';
import { findFreePort, waitForHttp } from '../clients/ports.ts';

/** A running soketi (Pusher-protocol realtime server) on loopback. */
export interface SoketiServer {
  host: string;
  port: number;
  appId: string;
  key: string;
  secret: string;
  /** Stops soketi (SIGTERM, SIGKILL after 5 s) and removes its temporary files. */
  stop(): Promise<void>;
}

export interface StartSoketiOptions {
  /** Port for the websocket + HTTP API; a free one when omitted. */
  port?: number;
  appId?: string;
  key?: string;
  secret?: string;
  /** Receives soketi's output lines; by default they are kept quiet and only shown when start-up fails. */
  onOutput?: (line: string) => void;
  /** How long to wait for soketi to answer (default 30 s). */
  timeoutMs?: number;
}

/**
 * Starts a throwaway soketi bound to 127.0.0.1 with one app, and waits until its HTTP API
 * answers. Cluster discovery stays on loopback (see scripts/lib/soketi.ts).
 */
export async function startSoketi(options: StartSoketiOptions = {}): Promise<SoketiServer> {
  const suffix = randomBytes(4).toString('hex');
  const host = '127.0.0.1';
  const port = options.port ?? (await findFreePort());
  const appId = options.appId ?? `test-app-${suffix}`;
  const key = options.key ?? `test-key-${suffix}`;
  const secret = options.secret ?? `test-secret-${suffix}`;
  const launch = await soketiLaunch({
    port,
    clusterPort: await findFreePort(),
    metricsPort: await findFreePort(),
    appId,
    key,
    secret,
    shutdownGracePeriodMs: 200,
  });

  const child = spawn(launch.command, launch.args, {
    cwd: launch.workDir,
    env: { ...process.env, ...launch.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail = new LineTail();
  const onLine = (line: string): void => {
    tail.push(line);
    options.onOutput?.(line);
  };
  forEachLine(child.stdout, onLine);
  forEachLine(child.stderr, onLine);
  let spawnError: Error | undefined;
  child.once('error', (error) => {
    spawnError = error;
  });

  const stop = async (): Promise<void> => {
    await stopChild(child, 5_000);
    rmSync(launch.workDir, { recursive: true, force: true });
  };

  try {
    await waitForHttp(`http://${host}:${port}/`, {
      description: `soketi on ${host}:${port}`,
      timeoutMs: options.timeoutMs ?? 30_000,
      giveUpIf: () => {
        if (spawnError) return `could not start soketi: ${spawnError.message}`;
        if (!isRunning(child)) return `soketi exited (code ${child.exitCode ?? child.signalCode})`;
        return undefined;
      },
    });
  } catch (error) {
    await stop();
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`${message}\n--- soketi output ---\n${tail.toString()}`, { cause: error });
  }

  return { host, port, appId, key, secret, stop };
}

// `npx tsx tests/support/services/soketi.ts`: start one, show it, stop it (a smoke test by hand).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = await startSoketi({ onOutput: (line) => console.log(`[soketi] ${line}`) });
  console.log(`soketi ready on ${server.host}:${server.port} (app ${server.appId})`);
  const started = Date.now();
  await server.stop();
  console.log(`soketi stopped in ${Date.now() - started} ms`);
}
