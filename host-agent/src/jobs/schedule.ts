import cron from 'node-cron';
import type { Logger } from 'pino';

/** A job running on a cron schedule; stop() ends the schedule (a run in progress finishes). */
export interface ScheduledJob {
  stop(): Promise<void>;
}

/**
 * Runs `run` on a node-cron expression (5 fields, or 6 with seconds first). Runs never overlap:
 * a tick that comes while the previous run is busy is skipped. A failing run is logged and the
 * schedule goes on. A bad expression throws at once, naming `setting`, so the agent does not
 * start with a job that never runs.
 */
export function scheduleJob(options: { name: string; expression: string; setting: string; run: () => Promise<unknown>; logger: Logger }): ScheduledJob {
  const { name, expression, setting, run, logger } = options;
  if (!cron.validate(expression)) throw new Error(`${setting}: ${JSON.stringify(expression)} is not a valid cron expression`);
  const task = cron.schedule(
    expression,
    async () => {
      try {
        await run();
      } catch (error) {
        logger.error({ err: error, job: name }, 'scheduled job failed');
      }
    },
    { name, noOverlap: true },
  );
  return {
    async stop() {
      await task.destroy();
    },
  };
}
