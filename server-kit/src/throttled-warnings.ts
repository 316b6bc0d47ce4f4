import type { Logger } from 'pino';

/** How often one lasting condition (a part that does not answer) is said again. */
export const WARNING_INTERVAL_MS = 60_000;

/**
 * One clear warning per lasting condition, said again at most once a minute: while the Docker
 * engine (or another part) is away, every call and every retry meets the same failure, and a line
 * for each buries the log. A repeat says how many times it happened since the last line.
 */
export class ThrottledWarnings {
  readonly #last = new Map<string, { at: number; since: number }>();

  constructor(
    private readonly logger: Pick<Logger, 'warn'>,
    private readonly intervalMs = WARNING_INTERVAL_MS,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Logs `message` for `key` unless it was logged less than the interval ago; returns whether it did. */
  warn(key: string, fields: Record<string, unknown>, message: string): boolean {
    const now = this.clock();
    const last = this.#last.get(key);
    if (last && now - last.at < this.intervalMs) {
      last.since += 1;
      return false;
    }
    const repeats = last && last.since > 0 ? { timesSinceLastWarning: last.since } : {};
    this.logger.warn({ ...fields, ...repeats }, `${message} (said again at most once a minute)`);
    this.#last.set(key, { at: now, since: 0 });
    return true;
  }

  /** The condition (every one, without a key) is over: a new occurrence is said at once. */
  clear(key?: string): void {
    if (key === undefined) this.#last.clear();
    else this.#last.delete(key);
  }
}
