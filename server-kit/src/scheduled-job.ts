import { Cron } from 'croner';
import type { Logger } from 'pino';

/** A job running on a cron schedule; stop() ends the schedule and waits for a run in progress. */
export interface ScheduledJob {
  stop(): Promise<void>;
}

/**
 * Whether `expression` is a cron expression (5 fields, or 6 with seconds first). croner rather
 * than node-cron: node-cron formats the time with Intl.DateTimeFormat on every tick, which loads
 * node's ICU locale data into every process that schedules anything (~5 MB of the idle figure).
 */
export function isCronExpression(expression: string): boolean {
  try {
    new Cron(expression, { paused: true }).stop();
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs `run` on a cron expression. Runs never overlap: a tick that comes while the previous run
 * is busy is skipped. A failing run is logged and the schedule goes on. A bad expression throws
 * at once, naming `setting`, so the process does not start with a job that never runs.
 */
export function scheduleJob(options: { name: string; expression: string; setting: string; run: () => Promise<unknown>; logger: Pick<Logger, 'error'> }): ScheduledJob {
  const { name, expression, setting, run, logger } = options;
  if (!isCronExpression(expression)) throw new Error(`${setting}: ${JSON.stringify(expression)} is not a valid cron expression`);
  let running: Promise<void> | undefined;
  const job = new Cron(expression, { name, protect: true }, async () => {
    running = (async () => {
      try {
        await run();
      } catch (error) {
        logger.error({ err: error, job: name }, 'scheduled job failed');
      }
    })();
    await running;
    running = undefined;
  });
  return {
    async stop() {
      job.stop();
      await running;
    },
  };
}
