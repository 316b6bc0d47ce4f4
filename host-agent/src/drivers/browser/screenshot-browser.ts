/**
 * Where the agent's screenshot browser runs, decided once at start-up (issue 16):
 *
 * 1. AGENT_BROWSER_SERVER set (production): the browser server of deploy/systemd/
 *    devplein-browser.service, on loopback, with the secret from AGENT_BROWSER_SECRET_FILE.
 * 2. Otherwise, when the agent runs as root (tests, `npm start` as root): the agent starts the
 *    browser server itself as AGENT_BROWSER_USER (setpriv).
 * 3. Otherwise (no root, or that user does not exist): today's fallback, Chromium inside the
 *    agent without its sandbox; logged as a warning at start-up.
 *
 * In 1 and 2 the owner-match iptables rules of browser-firewall.ts are (re)applied before every
 * browser start unless AGENT_BROWSER_FIREWALL=off; a start whose rules cannot be applied fails
 * (UNAVAILABLE), so a browser never runs without them.
 */
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { AgentConfig } from '../../config.ts';
import { BrowserFirewall } from './browser-firewall.ts';
import { BrowserServerProcess, lookUpUser } from './browser-server-process.ts';
import { type BrowserLauncher, localBrowserLauncher, remoteBrowserLauncher } from './launchers.ts';

export interface ScreenshotBrowser {
  launcher: BrowserLauncher;
  /** Stops a browser server the agent started and removes this agent's firewall rule. */
  close(): Promise<void>;
}

export function screenshotBrowser(config: AgentConfig, logger: Logger): ScreenshotBrowser {
  const { browser } = config;
  const isRoot = process.getuid?.() === 0;
  const fallback = (why: string): ScreenshotBrowser => {
    logger.warn(
      { why },
      'screenshots: Chromium runs inside the agent, as the agent’s user and WITHOUT its sandbox (see docs/operations.md, "The screenshot browser")',
    );
    return { launcher: localBrowserLauncher(config.chromiumPath), close: async () => undefined };
  };

  let server: () => Promise<{ port: number; secret: string }>;
  let process_: BrowserServerProcess | undefined;
  if (browser.server) {
    const port = Number(browser.server.slice(browser.server.lastIndexOf(':') + 1));
    const secretFile = browser.secretFile;
    server = async () => ({ port, secret: (await readFile(secretFile, 'utf8')).trim() });
    logger.info({ server: browser.server }, 'screenshots: using the browser server');
  } else {
    if (!isRoot) return fallback('the agent is not root and AGENT_BROWSER_SERVER is not set');
    const user = lookUpUser(browser.user);
    if (!user) return fallback(`there is no user ${browser.user} (useradd --system --shell /usr/sbin/nologin ${browser.user})`);
    const running = new BrowserServerProcess({ user, chromiumPath: config.chromiumPath, logger, logLevel: config.logLevel });
    process_ = running;
    server = () => running.address();
  }

  let firewall: BrowserFirewall | undefined;
  if (browser.firewall === 'iptables') {
    const user = lookUpUser(browser.user);
    if (user) firewall = new BrowserFirewall({ iptablesBinary: config.vpn.iptablesBinary, uid: user.uid, proxy: config.screenshots.proxy });
    else logger.error({ user: browser.user }, 'screenshots: the browser user does not exist here, so its firewall rules cannot be set; browsers will not start');
  }
  const launcher = remoteBrowserLauncher({
    server: async () => {
      if (browser.firewall === 'iptables') {
        if (!firewall) throw new Error(`no user ${browser.user}: the browser's firewall rules cannot be set`);
        try {
          await firewall.apply();
        } catch (error) {
          const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
          throw new Error(`the browser's firewall rules could not be set (${message})`, { cause: error });
        }
      }
      return server();
    },
  });
  return {
    launcher,
    async close() {
      await process_?.stop();
      await firewall?.remove().catch((error: unknown) => logger.warn({ err: error }, 'screenshots: the browser firewall rule was not removed'));
    },
  };
}
