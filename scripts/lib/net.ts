import { createServer } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';

/**
 * Asks the kernel for a free TCP port on loopback. The port is released before it is returned,
 * so another process could take it in between; callers start their server right away.
 */
export async function findFreePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host, port: 0, exclusive: true }, () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error('could not read the port of a probe socket'));
        return;
      }
      server.close(() => resolve(address.port));
    });
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
