import cron, { type TaskOptions } from 'node-cron';
import type { Logger } from 'pino';

/** A job running on a cron schedule; stop() ends the schedule and waits for a run in progress. */
export interface ScheduledJob {
  stop(): Promise<void>;
}

/** Whether `expression` is a cron expression node-cron runs (5 fields, or 6 with seconds first). */
export function isCronExpression(expression: string): boolean {
  return cron.validate(expression);
}

function cronLogger(logger: Pick<Logger, 'error' | 'warn'>, job: string): TaskOptions['logger'] {
  const warn = (message: string | Error) => logger.warn({ job }, `node-cron: ${String(message)}`);
  return { info: () => undefined, debug: () => undefined, warn, error: (message, err) => logger.error({ err: err ?? message, job }, 'node-cron error') };
}

/**
 * Runs `run` on a cron expression (node-cron). Runs never overlap: a tick that comes while the
 * previous run is busy is skipped (noOverlap). A failing run is logged here and the schedule goes
 * on; node-cron never sees the error. A bad expression throws at once, naming `setting`, so the
 * process does not start with a job that never runs.
 */
export function scheduleJob(options: { name: string; expression: string; setting: string; run: () => Promise<unknown>; logger: Pick<Logger, 'error' | 'warn'> }): ScheduledJob {
  const { name, expression, setting, run, logger } = options;
  if (!isCronExpression(expression)) throw new Error(`${setting}: ${JSON.stringify(expression)} is not a valid cron expression`);
  let running: Promise<void> | undefined;
  const task = cron.schedule(
    expression,
    async () => {
      running = (async () => {
        try {
          await run();
        } catch (error) {
          logger.error({ err: error, job: name }, 'scheduled job failed');
        }
      })();
      await running;
      running = undefined;
    },
    // node-cron's own messages (a missed tick after a blocked event loop) go to our log, not the console.
    { name, noOverlap: true, logger: cronLogger(logger, name) },
  );
  return {
    async stop() {
      // destroy, not only stop: node-cron keeps every task in a registry of its own until then.
      await task.destroy();
      await running;
    },
  };
}
