/**
 * Entry of the git runner (see drivers/git/git-runner-server.ts): run as the unprivileged user
 * devplein-git by its own systemd unit in production (deploy/systemd/devplein-git.service); the
 * agent sends it the fetches of git deploys (AGENT_GIT_RUNNER).
 *
 * Settings (environment):
 *   GIT_RUNNER_LISTEN       127.0.0.1:PORT to listen on (default 127.0.0.1:9224; port 0: any)
 *   GIT_RUNNER_SECRET_FILE  file with the shared secret (systemd: the unit's credential), or
 *   GIT_RUNNER_SECRET       the secret itself (tests)
 *   GIT_RUNNER_STATE_DIR    checkouts and git's own state (default /var/lib/devplein-git)
 *   GIT_RUNNER_EXIT_WITH_STDIN=1  exit when stdin closes (whoever started it is gone)
 *   LOG_LEVEL
 * Logs pino JSON lines; one has "msg":"git runner listening" and the port.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { createLogger } from '../logger.ts';
import { startGitRunnerServer } from '../drivers/git/git-runner-server.ts';

const settingsSchema = z
  .object({
    GIT_RUNNER_LISTEN: z
      .string()
      .regex(/^127\.0\.0\.1:\d{1,5}$/, 'GIT_RUNNER_LISTEN must be 127.0.0.1:PORT (loopback only)')
      .default('127.0.0.1:9224'),
    GIT_RUNNER_SECRET_FILE: z.string().min(1).optional(),
    GIT_RUNNER_SECRET: z.string().min(1).optional(),
    GIT_RUNNER_STATE_DIR: z.string().min(1).default('/var/lib/devplein-git'),
    GIT_RUNNER_EXIT_WITH_STDIN: z.enum(['0', '1']).default('0'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  })
  .refine((values) => values.GIT_RUNNER_SECRET_FILE ?? values.GIT_RUNNER_SECRET, 'set GIT_RUNNER_SECRET_FILE (or GIT_RUNNER_SECRET)');

const logger = createLogger('git-runner');
const parsed = settingsSchema.safeParse(process.env);
if (!parsed.success) {
  logger.fatal(`invalid git runner configuration: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
  process.exit(1);
}
const settings = parsed.data;
logger.level = settings.LOG_LEVEL;
const secret = settings.GIT_RUNNER_SECRET_FILE ? readFileSync(settings.GIT_RUNNER_SECRET_FILE, 'utf8').trim() : (settings.GIT_RUNNER_SECRET ?? '');
if (secret.length < 16) {
  logger.fatal('the git runner secret must be at least 16 characters');
  process.exit(1);
}
// The agent reads the checkouts through the group (its unit has SupplementaryGroups=devplein-git);
// nobody else may: whatever umask started this process.
process.umask(0o027);
const port = Number(settings.GIT_RUNNER_LISTEN.slice(settings.GIT_RUNNER_LISTEN.lastIndexOf(':') + 1));
const server = await startGitRunnerServer({ host: '127.0.0.1', port, secret, stateDir: settings.GIT_RUNNER_STATE_DIR, logger });
// Whoever started this process waits for this line: printed whatever LOG_LEVEL says.
process.stdout.write(`${JSON.stringify({ level: 30, time: Date.now(), name: 'git-runner', port: server.port, uid: process.getuid?.(), msg: 'git runner listening' })}\n`);

let stopping = false;
const stop = (why: string) => {
  if (stopping) return;
  stopping = true;
  logger.info({ why }, 'git runner stopping');
  void server.close().finally(() => process.exit(0));
};
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
if (settings.GIT_RUNNER_EXIT_WITH_STDIN === '1') {
  process.stdin.on('end', () => stop('whoever started it is gone'));
  process.stdin.on('error', () => stop('whoever started it is gone'));
  process.stdin.resume();
}
