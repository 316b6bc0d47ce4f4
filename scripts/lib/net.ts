import { createServer } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';

const LOW_PORT = 20_000;
const HIGH_PORT = 32_000;
const handedOut = new Set<number>();

/**
 * A free loopback port for a server started next. It comes from below the kernel's ephemeral
 * range (32768–60999 here): a port the kernel picked for `listen(0)` is free only until the server
 * binds it, and meanwhile any outgoing connection of any process (to PostgreSQL, Docker, …) may
 * get it as its local port (CI: a control plane died of EADDRINUSE on such a port). Below that
 * range only another listener can take it: random choice and a bind check make that unlikely,
 * and this process never hands out the same port twice.
 */
export async function findFreePort(host = '127.0.0.1'): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = LOW_PORT + Math.floor(Math.random() * (HIGH_PORT - LOW_PORT));
    if (handedOut.has(port) || !(await bindable(host, port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port between ${LOW_PORT} and ${HIGH_PORT} on ${host}`);
}

function bindable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

export interface WaitForOptions {
  /** What is awaited, for the error message. */
  description: string;
  timeoutMs?: number;
  intervalMs?: number;
  /** Returns a reason to give up early (e.g. "the process exited with code 1"), or undefined to go on. */
  giveUpIf?: () => string | undefined;
}

/**
 * Polls `condition` until it returns true. A condition that throws counts as "not yet"; the last
 * error is put in the timeout message so a failing start-up says why.
 */
export async function waitFor(condition: () => Promise<boolean> | boolean, options: WaitForOptions): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const intervalMs = options.intervalMs ?? 100;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    const reason = options.giveUpIf?.();
    if (reason !== undefined) throw new Error(`gave up waiting for ${options.description}: ${reason}`);
    try {
      if (await condition()) return;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const detail = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${options.description}${detail}`);
    }
    await delay(intervalMs);
  }
}

/** True when `url` answers with a status the caller accepts (by default any 2xx). */
export async function httpAnswers(url: string, accept: (status: number) => boolean = (s) => s >= 200 && s < 300): Promise<boolean> {
  const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  await response.body?.cancel();
  return accept(response.status);
}

/** Waits until `url` answers 2xx (or what `accept` allows). */
export async function waitForHttp(
  url: string,
  options: Omit<WaitForOptions, 'description'> & { description?: string; accept?: (status: number) => boolean } = {},
): Promise<void> {
  await waitFor(() => httpAnswers(url, options.accept), { ...options, description: options.description ?? `GET ${url}` });
}
