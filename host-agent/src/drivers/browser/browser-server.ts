/**
 * The browser server: runs as its own unprivileged user (devplein-browser), never as the agent,
 * and starts one sandboxed Chromium per request of the agent (issue 16).
 *
 * Protocol (loopback HTTP, one request per browser):
 *   POST /launch   Authorization: Bearer <secret>   {"args": ["--proxy-server=…", …]}
 *   → 200, application/x-ndjson: one line {"wsEndpoint": "ws://127.0.0.1:PORT/<random>"}, and
 *     the response stays open for as long as that browser lives.
 * The agent connects to the endpoint with playwright-core's `chromium.connect()`. The request
 * is the browser's lifeline both ways: when the agent closes it (a retired or wedged browser, an
 * agent that died) the server closes that Chromium, killing it after 10 s; when Chromium exits
 * (a crash, a kill) the server ends the response and the agent's connection drops with it.
 *
 * Why a browser per request and not one shared `launchServer()`: the agent recycles browsers
 * after a number of captures and replaces crashed ones (memory stays bounded, a page that
 * crashes the browser cannot hurt the next site); a shared browser would outlive both.
 *
 * Chromium's sandbox is always on (`chromiumSandbox: true`); arguments that would weaken it or
 * open another way in are refused, whoever asks.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserServer } from 'playwright-core';
import type { Logger } from 'pino';
import { z } from 'zod';
import { hasSecret, readBody } from '../loopback-server.ts';

/** Switches that turn Chromium's sandbox off, open a debugging port, or run other programs: never accepted. */
const REFUSED_SWITCHES = [
  '--no-sandbox',
  '--disable-setuid-sandbox',
  '--disable-namespace-sandbox',
  '--disable-seccomp-filter-sandbox',
  '--no-zygote',
  '--single-process',
  '--in-process-gpu',
  '--remote-debugging-port',
  '--remote-debugging-address',
  '--remote-debugging-pipe',
  '--user-data-dir',
  '--renderer-cmd-prefix',
  '--utility-cmd-prefix',
  '--gpu-launcher',
  '--browser-subprocess-path',
  '--load-extension',
];

const launchRequestSchema = z.object({
  args: z
    .array(z.string().min(1).max(2_000))
    .max(40)
    .refine((args) => args.every((arg) => arg.startsWith('--')), 'only --switches')
    .refine(
      (args) => !args.some((arg) => REFUSED_SWITCHES.some((refused) => arg === refused || arg.startsWith(`${refused}=`))),
      `these switches are refused: ${REFUSED_SWITCHES.join(' ')}`,
    ),
});

export type LaunchRequest = z.infer<typeof launchRequestSchema>;

/** The first line of a launch answer. */
/**
 * playwright-core, loaded on first use: it is the largest module of the agent (≈ 80 MB RSS,
 * 33 MB of heap when loaded), and an agent that takes no screenshot never needs it.
 */
export async function loadChromium(): Promise<typeof import('playwright-core').chromium> {
  return (await import('playwright-core')).chromium;
}

export const launchAnswerSchema = z.object({ wsEndpoint: z.string().regex(/^ws:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{32}$/) });

export interface BrowserServerOptions {
  /** Address to listen on: loopback only. */
  host: string;
  /** 0: any free port. */
  port: number;
  /** What the agent sends as a bearer token. */
  secret: string;
  chromiumPath: string;
  /** Browsers at the same time (a recycle briefly needs two); further launches get 429. */
  maxBrowsers: number;
  /** Environment of Chromium (HOME and XDG directories it may write). */
  chromiumEnv: Record<string, string>;
  logger: Logger;
}

export interface RunningBrowserServer {
  port: number;
  /** Browsers running now. */
  browsers(): number;
  /** Stops listening and closes every browser. */
  close(): Promise<void>;
}

/** Closes a browser server; kills its Chromium when closing takes longer than 10 s. */
async function closeBrowser(server: BrowserServer): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const closed = server.close().then(() => true, () => false);
  const inTime = await Promise.race([closed, new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), 10_000)))]);
  clearTimeout(timer);
  if (!inTime) await server.kill().catch(() => undefined);
}

export async function startBrowserServer(options: BrowserServerOptions): Promise<RunningBrowserServer> {
  const { logger } = options;
  const running = new Set<BrowserServer>();
  let launches = 0;

  const answer = (response: http.ServerResponse, status: number, message: string) => {
    response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
    response.end(`${message}\n`);
  };

  const launch = async (request: http.IncomingMessage, response: http.ServerResponse): Promise<void> => {
    let parsed: LaunchRequest;
    try {
      parsed = launchRequestSchema.parse(JSON.parse(await readBody(request, 64_000)));
    } catch (error) {
      answer(response, 400, error instanceof z.ZodError ? error.issues.map((issue) => issue.message).join('; ') : 'expected JSON {"args": [...]}');
      return;
    }
    if (running.size >= options.maxBrowsers) {
      answer(response, 429, `at most ${options.maxBrowsers} browsers at a time`);
      return;
    }
    const id = ++launches;
    let lost = false;
    request.socket.once('close', () => (lost = true));
    let server: BrowserServer;
    try {
      server = await (await loadChromium()).launchServer({
        executablePath: options.chromiumPath,
        args: parsed.args,
        chromiumSandbox: true,
        host: '127.0.0.1',
        port: 0,
        wsPath: randomBytes(16).toString('hex'),
        env: options.chromiumEnv,
        timeout: 30_000,
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
    } catch (error) {
      const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
      logger.error({ err: error, browser: id }, 'browser server: Chromium did not start');
      answer(response, 500, `Chromium did not start: ${message}`);
      return;
    }
    running.add(server);
    const pid = server.process().pid;
    logger.info({ browser: id, chromiumPid: pid }, 'browser server: browser started');
    server.once('close', () => {
      running.delete(server);
      logger.info({ browser: id, chromiumPid: pid }, 'browser server: browser closed');
      response.end();
    });
    // The agent hung up (or went away): this browser is no longer anyone's.
    const abandon = () => void closeBrowser(server);
    if (lost) {
      abandon();
      return;
    }
    request.socket.once('close', abandon);
    response.writeHead(200, { 'Content-Type': 'application/x-ndjson', 'Cache-Control': 'no-store' });
    response.write(`${JSON.stringify({ wsEndpoint: server.wsEndpoint() })}\n`);
  };

  const httpServer = http.createServer((request, response) => {
    if (!hasSecret(request.headers.authorization, options.secret)) {
      answer(response, 401, 'unauthorized');
      return;
    }
    if (request.method !== 'POST' || request.url !== '/launch') {
      answer(response, 404, 'POST /launch');
      return;
    }
    launch(request, response).catch((error: unknown) => {
      logger.error({ err: error }, 'browser server: launch failed');
      if (!response.headersSent) answer(response, 500, 'launch failed');
      else response.end();
    });
  });
  // A launch answer lives as long as its browser: no timeouts on it.
  httpServer.requestTimeout = 0;
  httpServer.headersTimeout = 10_000;
  httpServer.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port, options.host, () => resolve());
  });
  const port = (httpServer.address() as AddressInfo).port;
  return {
    port,
    browsers: () => running.size,
    async close() {
      httpServer.close();
      httpServer.closeAllConnections();
      await Promise.all([...running].map((server) => closeBrowser(server)));
    },
  };
}
