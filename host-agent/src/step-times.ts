import { performance } from 'node:perf_hooks';

/**
 * Milliseconds per named step of one call, for its log line: where a slow create spends its
 * time (the class-start bench prints them). A step timed twice adds up.
 */
export class StepTimes {
  private readonly ms: Record<string, number> = {};
  private readonly began = performance.now();

  async time<T>(step: string, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.ms[step] = (this.ms[step] ?? 0) + Math.round(performance.now() - started);
    }
  }

  /** The steps so far and the whole time since this was made. */
  toJSON(): Record<string, number> {
    return { ...this.ms, total: Math.round(performance.now() - this.began) };
  }
}
