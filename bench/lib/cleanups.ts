/**
 * What a benchmark started (engine, servers, containers, folders), undone in reverse order at its
 * end, also after a failure or an interrupt (SIGINT/SIGTERM: clean up, then exit 1; a repeated
 * signal, as tsx and npm pass Ctrl-C on too, does not cut the cleanup short).
 */
export class Cleanups {
  private readonly steps: Array<{ what: string; run: () => Promise<unknown> }> = [];
  private cleaning: Promise<void> | undefined;

  constructor() {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.on(signal, () => {
        if (this.cleaning) return;
        console.error(`${signal}: cleaning up`);
        void this.run().finally(() => process.exit(1));
      });
    }
  }

  /** Registers an undo step; the last one added runs first. */
  add(what: string, run: () => Promise<unknown>): void {
    this.steps.push({ what, run });
  }

  /** Runs every step once (a failing step is logged; the others still run). */
  run(): Promise<void> {
    this.cleaning ??= (async () => {
      for (const { what, run } of [...this.steps].reverse()) {
        try {
          await run();
        } catch (error) {
          console.error(`cleanup: ${what} failed:`, error);
        }
      }
    })();
    return this.cleaning;
  }
}
