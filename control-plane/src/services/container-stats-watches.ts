import type { Logger } from 'pino';
import { AgentError } from '../agent/agent-error.ts';
import type { ContainerStatsView } from '../agent/clients/container-stats.ts';
import type { AgentFleet } from '../agent/agent-fleet.ts';
import type { StatsPoint } from '../agent/clients/container-stats.ts';
import type { StatsSnapshot } from '../agent/clients/container-stats.ts';

export interface ContainerStatsWatchesOptions {
  agents: Pick<AgentFleet, 'forHost'>;
  logger: Logger;
  /** How far back the history goes (default 5 minutes). */
  historyMs?: number;
  /** Least time between two kept points (default 5 s: 60 points for 5 minutes). */
  pointEveryMs?: number;
  /** A watch nobody read for this long is closed (default 30 s, six missed 5-second polls). */
  idleMs?: number;
  /** Longest wait of a first read for the first sample (default 4 s). */
  firstSampleMs?: number;
  now?: () => number;
}

interface Watch {
  key: string;
  history: StatsPoint[];
  latest: ContainerStatsView | null;
  lastReadAt: number;
  abort: AbortController;
  /** Settles with the first sample, or the failure before it. */
  first: Promise<void>;
  /** Set when the stream ended: the next read starts a new watch (or learns why not). */
  ended: unknown;
  done: boolean;
}

const keyOf = (host: string | null, projectId: number): string => `${host ?? ''}#${projectId}`;

/**
 * The control plane's side of live container stats: one agent stream (WatchContainerStats) per
 * container that someone looks at, shared by every tab that polls it, and closed when no poll
 * came for `idleMs`. Each watch keeps the last `historyMs` as points `pointEveryMs` apart, in
 * memory only (60 points of 3 numbers per watched container: a few KB), so a newly opened tab
 * gets the last 5 minutes at once. A restart of the control plane starts the history afresh.
 */
export class ContainerStatsWatches {
  private readonly watches = new Map<string, Watch>();
  private readonly historyMs: number;
  private readonly pointEveryMs: number;
  private readonly idleMs: number;
  private readonly firstSampleMs: number;
  private readonly now: () => number;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(private readonly options: ContainerStatsWatchesOptions) {
    this.historyMs = options.historyMs ?? 5 * 60_000;
    this.pointEveryMs = options.pointEveryMs ?? 5_000;
    this.idleMs = options.idleMs ?? 30_000;
    this.firstSampleMs = options.firstSampleMs ?? 4_000;
    this.now = options.now ?? Date.now;
  }

  /** Agent streams open now. */
  openWatches(): number {
    return this.watches.size;
  }

  /**
   * The container's stats now and its history; starts the shared watch when there is none.
   * Rejects with the AgentError of an unreachable agent (the route answers 503).
   */
  async read(host: string | null, projectId: number): Promise<StatsSnapshot> {
    const key = keyOf(host, projectId);
    let watch = this.watches.get(key);
    if (!watch) {
      watch = this.open(key, host, projectId);
    }
    watch.lastReadAt = this.now();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([watch.first, new Promise<void>((resolve) => (timer = setTimeout(resolve, this.firstSampleMs)))]);
    clearTimeout(timer);
    if (watch.latest) return { status: 'live', current: watch.latest, history: [...watch.history] };
    const failure = watch.ended;
    if (failure instanceof AgentError) {
      if (failure.unreachable) throw failure;
      if (failure.code === 'UNIMPLEMENTED') return { status: 'unsupported' };
      if (failure.code === 'FAILED_PRECONDITION' || failure.code === 'NOT_FOUND') return { status: 'not-running' };
    }
    if (failure !== undefined) {
      this.options.logger.warn({ err: failure, projectId }, 'container stats failed');
      return { status: 'failed' };
    }
    if (watch.done) return { status: 'not-running' };
    // Still waiting for the agent's first sample: nothing to show yet, but the watch runs.
    return { status: 'starting' };
  }

  /** Closes every watch (shutdown, tests). */
  close(): void {
    for (const watch of this.watches.values()) watch.abort.abort();
    this.watches.clear();
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  private open(key: string, host: string | null, projectId: number): Watch {
    const abort = new AbortController();
    let settleFirst: () => void = () => undefined;
    const watch: Watch = {
      key,
      history: [],
      latest: null,
      lastReadAt: this.now(),
      abort,
      first: new Promise<void>((resolve) => (settleFirst = resolve)),
      ended: undefined,
      done: false,
    };
    this.watches.set(key, watch);
    this.ensureSweeper();
    const stream = this.options.agents.forHost(host).containerStats.watchContainerStats({ projectId }, { signal: abort.signal });
    void (async () => {
      try {
        for await (const sample of stream) {
          if (!sample) continue;
          this.record(watch, sample);
          settleFirst();
        }
      } catch (error) {
        watch.ended = error;
        if (!abort.signal.aborted) this.options.logger.debug({ err: error, projectId }, 'container stats watch ended');
      } finally {
        watch.done = true;
        if (this.watches.get(key) === watch) this.watches.delete(key);
        settleFirst();
      }
    })();
    return watch;
  }

  private record(watch: Watch, sample: ContainerStatsView): void {
    watch.latest = sample;
    const at = sample.readAt.getTime();
    const last = watch.history.at(-1);
    if (!last || at - last.at.getTime() >= this.pointEveryMs) {
      watch.history.push({ at: sample.readAt, cpuPercent: sample.cpuPercent, memoryUsedBytes: sample.memoryUsedBytes });
    }
    const cutoff = at - this.historyMs;
    while (watch.history.length > 0 && (watch.history[0]?.at.getTime() ?? 0) < cutoff) watch.history.shift();
  }

  /** Every 5 s: closes the watches nobody read for `idleMs` (their agent stream ends). */
  private ensureSweeper(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => {
      const now = this.now();
      for (const [key, watch] of this.watches) {
        if (now - watch.lastReadAt >= this.idleMs) {
          this.watches.delete(key);
          watch.abort.abort();
        }
      }
      if (this.watches.size === 0) {
        clearInterval(this.sweeper);
        this.sweeper = undefined;
      }
    }, Math.min(5_000, this.idleMs));
    this.sweeper.unref();
  }
}
