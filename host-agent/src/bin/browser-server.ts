/**
 * Entry of the screenshot browser server (see drivers/browser/browser-server.ts): run as the
 * unprivileged user devplein-browser, by its own systemd unit in production
 * (deploy/systemd/devplein-browser.service) or by the agent itself when it runs as root
 * (tests, `npm start`).
 *
 * Settings (environment):
 *   BROWSER_LISTEN        127.0.0.1:PORT to listen on (default 127.0.0.1:9223; port 0: any)
 *   BROWSER_SECRET_FILE   file with the shared secret (systemd: the unit's credential), or
 *   BROWSER_SECRET        the secret itself (only when the agent starts this process)
 *   BROWSER_CHROMIUM_PATH Chromium (default /usr/bin/chromium)
 *   BROWSER_MAX           browsers at the same time (default 4)
 *   BROWSER_EXIT_WITH_STDIN=1  exit when stdin closes (the agent that started it is gone)
 *   LOG_LEVEL
 * Logs pino JSON lines; one has "msg":"browser server listening" and the port.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { createLogger } from '../logger.ts';
import { startBrowserServer } from '../drivers/browser/browser-server.ts';

const settingsSchema = z
  .object({
    BROWSER_LISTEN: z
      .string()
      .regex(/^127\.0\.0\.1:\d{1,5}$/, 'BROWSER_LISTEN must be 127.0.0.1:PORT (loopback only)')
      .default('127.0.0.1:9223'),
    BROWSER_SECRET_FILE: z.string().min(1).optional(),
    BROWSER_SECRET: z.string().min(1).optional(),
    BROWSER_CHROMIUM_PATH: z.string().min(1).default('/usr/bin/chromium'),
    BROWSER_MAX: z.coerce.number().int().min(1).max(16).default(4),
    BROWSER_EXIT_WITH_STDIN: z.enum(['0', '1']).default('0'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  })
  .refine((values) => values.BROWSER_SECRET_FILE ?? values.BROWSER_SECRET, 'set BROWSER_SECRET_FILE (or BROWSER_SECRET)');

const logger = createLogger('browser-server');
const parsed = settingsSchema.safeParse(process.env);
if (!parsed.success) {
  logger.fatal(`invalid browser server configuration: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
  process.exit(1);
}
const settings = parsed.data;
logger.level = settings.LOG_LEVEL;
const secret = settings.BROWSER_SECRET_FILE ? readFileSync(settings.BROWSER_SECRET_FILE, 'utf8').trim() : (settings.BROWSER_SECRET ?? '');
if (secret.length < 16) {
  logger.fatal('the browser secret must be at least 16 characters');
  process.exit(1);
}
// Screenshots are background work: this process and the Chromium it starts (which inherits the
// nice value) give way to the agent and the control plane when a class starts 30 sites at once.
try {
  os.setPriority(Math.max(os.getPriority(), 10));
} catch (error) {
  logger.warn({ err: error }, 'could not lower the browser server\'s CPU priority');
}
// Chromium writes to HOME (crash reports, NSS database): a private directory of this run.
const home = mkdtempSync(path.join(os.tmpdir(), 'devplein-browser-home-'));
// Playwright's profiles and Chromium's own temporary files go in there too, so stopping removes
// everything (Chromium leaves org.chromium.Chromium.* behind in /tmp when it is killed).
const temporary = path.join(home, 'tmp');
mkdirSync(temporary);
process.env.TMPDIR = temporary;
const port = Number(settings.BROWSER_LISTEN.slice(settings.BROWSER_LISTEN.lastIndexOf(':') + 1));
const server = await startBrowserServer({
  host: '127.0.0.1',
  port,
  secret,
  chromiumPath: settings.BROWSER_CHROMIUM_PATH,
  maxBrowsers: settings.BROWSER_MAX,
  chromiumEnv: { PATH: process.env.PATH ?? '/usr/bin:/bin', TMPDIR: temporary, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_CACHE_HOME: path.join(home, '.cache') },
  logger,
});
// Whoever started this process waits for this line: printed whatever LOG_LEVEL says.
process.stdout.write(`${JSON.stringify({ level: 30, time: Date.now(), name: 'browser-server', port: server.port, uid: process.getuid?.(), msg: 'browser server listening' })}\n`);

let stopping = false;
const stop = (why: string) => {
  if (stopping) return;
  stopping = true;
  logger.info({ why }, 'browser server stopping');
  void server.close().finally(() => {
    rmSync(home, { recursive: true, force: true });
    process.exit(0);
  });
};
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
if (settings.BROWSER_EXIT_WITH_STDIN === '1') {
  process.stdin.on('end', () => stop('the agent that started it is gone'));
  process.stdin.on('error', () => stop('the agent that started it is gone'));
  process.stdin.resume();
}
