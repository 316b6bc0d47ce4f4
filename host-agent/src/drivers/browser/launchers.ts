/**
 * How the screenshot pool gets a browser:
 *
 * - `remoteBrowserLauncher`: from the browser server (browser-server.ts), which runs Chromium
 *   as its own unprivileged user with the sandbox on; the agent only holds a WebSocket to it.
 *   This is the normal way (issue 16).
 * - `localBrowserLauncher`: Chromium as a child of the agent, as the agent's user, without
 *   the sandbox (`--no-sandbox`: it needs user namespaces, which the agent's unit forbids).
 *   Only the fallback when no browser server can be had (the agent not root and none
 *   configured); the agent logs a warning when it uses it.
 */
import http from 'node:http';
import type { Browser } from 'playwright-core';
import { launchAnswerSchema, loadChromium } from './browser-server.ts';
import { findProcessesWithArgument } from './processes.ts';

export interface LaunchedBrowser {
  browser: Browser;
  /** Closes the browser (resolves once it is asked to go; the pool bounds the wait). */
  close(): Promise<void>;
  /** Last resort for a browser that did not close: its processes must go. */
  kill(): void;
}

export interface BrowserLauncher {
  /** For logs: how the browser runs. */
  readonly kind: 'browser server' | 'in the agent (no sandbox)';
  /** `marker`: a switch on Chromium's command line that names this browser (already in args). */
  launch(args: string[], marker: string, timeoutMs: number): Promise<LaunchedBrowser>;
}

export function localBrowserLauncher(chromiumPath: string): BrowserLauncher {
  return {
    kind: 'in the agent (no sandbox)',
    async launch(args, marker, timeoutMs) {
      const browser = await (await loadChromium()).launch({
        executablePath: chromiumPath,
        args: ['--no-sandbox', ...args],
        timeout: timeoutMs,
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
      return {
        browser,
        close: () => browser.close(),
        kill: () => {
          for (const pid of findProcessesWithArgument(marker)) {
            try {
              process.kill(pid, 'SIGKILL');
            } catch {
              // already gone
            }
          }
        },
      };
    },
  };
}

export interface RemoteLauncherOptions {
  /** Resolves to the server's address and secret (the agent may have to start it first). */
  server: () => Promise<{ port: number; secret: string }>;
}

/** Asks the browser server for a browser and keeps the request open as its lifeline. */
function requestBrowser(port: number, secret: string, args: string[], timeoutMs: number): Promise<{ wsEndpoint: string; lifeline: http.ClientRequest }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ args });
    const request = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/launch',
      headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
      agent: false,
    });
    const timer = setTimeout(() => request.destroy(new Error(`the browser server did not answer within ${timeoutMs} ms`)), timeoutMs);
    request.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.once('response', (response) => {
      if (response.statusCode !== 200) {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.once('end', () => {
          clearTimeout(timer);
          reject(new Error(`the browser server answered ${response.statusCode}: ${text.trim()}`));
        });
        return;
      }
      let pending = '';
      const onData = (chunk: Buffer) => {
        pending += chunk.toString();
        const newline = pending.indexOf('\n');
        if (newline < 0) return;
        response.off('data', onData);
        clearTimeout(timer);
        try {
          const { wsEndpoint } = launchAnswerSchema.parse(JSON.parse(pending.slice(0, newline)));
          // Further data is not expected; keep the stream flowing so 'close' is seen.
          response.resume();
          resolve({ wsEndpoint, lifeline: request });
        } catch (error) {
          request.destroy();
          reject(new Error('the browser server sent an answer that is not a browser endpoint', { cause: error }));
        }
      };
      response.on('data', onData);
    });
    request.end(body);
  });
}

export function remoteBrowserLauncher(options: RemoteLauncherOptions): BrowserLauncher {
  return {
    kind: 'browser server',
    async launch(args, _marker, timeoutMs) {
      const { port, secret } = await options.server();
      const { wsEndpoint, lifeline } = await requestBrowser(port, secret, args, timeoutMs);
      let browser: Browser;
      try {
        browser = await (await loadChromium()).connect(wsEndpoint, { timeout: timeoutMs });
      } catch (error) {
        lifeline.destroy();
        throw error;
      }
      // The server ended the lifeline: that browser is gone, whatever the WebSocket says.
      lifeline.once('close', () => {
        if (browser.isConnected()) void browser.close().catch(() => undefined);
      });
      return {
        browser,
        async close() {
          await browser.close().catch(() => undefined);
          lifeline.destroy();
        },
        // Hanging up makes the server close that Chromium, and kill it after 10 s.
        kill: () => lifeline.destroy(),
      };
    },
  };
}
