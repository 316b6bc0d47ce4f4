import type { DeployLogLine } from '@devplein/contract/deploys';

/** Lines a deploy's row keeps at most (the first ones and the last ones). */
export const DEPLOY_LOG_MAX_LINES = 2_000;
/** Characters of one line at most (a build can print very long lines). */
export const DEPLOY_LOG_MAX_LINE = 1_000;
const HEAD_LINES = 200;

/**
 * A deploy's log, capped: the first HEAD_LINES lines (how the fetch began) and the newest ones
 * up to DEPLOY_LOG_MAX_LINES in all, with one Dutch line saying how many were left out between.
 * `take()` hands out the lines added since the last take (for the realtime batch).
 */
export class DeployLog {
  private readonly head: DeployLogLine[] = [];
  private tail: DeployLogLine[] = [];
  private dropped = 0;
  private fresh: DeployLogLine[] = [];

  add(line: DeployLogLine): void {
    // PostgreSQL's jsonb cannot hold U+0000 (a build may print it).
    const text = line.text.replaceAll('\u0000', '');
    const capped = { ...line, text: text.length > DEPLOY_LOG_MAX_LINE ? `${text.slice(0, DEPLOY_LOG_MAX_LINE)}…` : text };
    this.fresh.push(capped);
    if (this.head.length < HEAD_LINES) {
      this.head.push(capped);
      return;
    }
    this.tail.push(capped);
    const room = DEPLOY_LOG_MAX_LINES - HEAD_LINES - 1;
    if (this.tail.length > room * 2) {
      this.dropped += this.tail.length - room;
      this.tail = this.tail.slice(-room);
    }
  }

  /** The lines added since the last call. */
  take(): DeployLogLine[] {
    const lines = this.fresh;
    this.fresh = [];
    return lines;
  }

  /** Whether lines were added since the last take(). */
  get hasFresh(): boolean {
    return this.fresh.length > 0;
  }

  /** What the row keeps. */
  lines(): DeployLogLine[] {
    const room = DEPLOY_LOG_MAX_LINES - HEAD_LINES - 1;
    const over = Math.max(0, this.tail.length - room);
    const dropped = this.dropped + over;
    const kept = over > 0 ? this.tail.slice(over) : this.tail;
    if (dropped === 0) return [...this.head, ...kept];
    return [...this.head, { phase: 'queue', text: `… ${dropped} regels weggelaten …`, percent: null }, ...kept];
  }
}
