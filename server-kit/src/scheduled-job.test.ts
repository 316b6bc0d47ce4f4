import { describe, expect, it } from 'vitest';
import { isCronExpression, scheduleJob } from './scheduled-job.ts';

describe('scheduled jobs', () => {
  it('takes 5-field expressions and 6 with seconds first, and refuses the rest', () => {
    for (const good of ['* * * * *', '0 3 * * *', '*/5 * * * *', '*/1 * * * * *']) expect(isCronExpression(good), good).toBe(true);
    for (const bad of ['', 'elke minuut', '61 * * * *', '* * *']) expect(isCronExpression(bad), bad).toBe(false);
  });

  it('names the setting of a bad expression at once', () => {
    expect(() => scheduleJob({ name: 'x', expression: 'nooit', setting: 'AGENT_IDLE_CRON', run: async () => undefined, logger: { error: () => undefined, warn: () => undefined } })).toThrow(
      /AGENT_IDLE_CRON: "nooit" is not a valid cron expression/,
    );
  });

  it('runs every second with seconds first, skips a tick while a run is busy, logs a failure and goes on; stop waits for the run', async () => {
    const errors: unknown[] = [];
    let runs = 0;
    let release: () => void = () => undefined;
    const job = scheduleJob({
      name: 'test',
      expression: '* * * * * *',
      setting: 'TEST_CRON',
      logger: { error: (fields: unknown) => void errors.push(fields), warn: () => undefined },
      run: async () => {
        runs += 1;
        if (runs === 1) throw new Error('eerste mislukt');
        // The second run holds on for the next ticks.
        await new Promise<void>((resolve) => (release = resolve));
      },
    });
    await expect.poll(() => runs, { timeout: 5_000, interval: 50 }).toBe(2);
    // Two more ticks pass while the second run is busy: no third run starts.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    expect(runs).toBe(2);
    expect(errors).toHaveLength(1);
    let stopped = false;
    const stopping = job.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(runs).toBe(2);
  });
});
