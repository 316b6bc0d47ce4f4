import type { DockerEngine } from './engine.ts';
import type { Logger } from 'pino';
import { type ContainerStateFacts, type ContainerStatsSample, type DockerStatsJson, isZeroRead, statsSample } from './container-stats.ts';
import { translateDockerError } from './docker-errors.ts';

/** How the hub reaches the Docker engine (the engine in the agent, a fake in unit tests). */
export interface StatsSource {
  /**
   * Starts sampling one container (a sample every interval: one poll loop on the engine). `onEnd` is
   * called once when the stream ends by itself (with its error, if any), never after `close()`.
   */
  open(containerId: string, onSample: (json: DockerStatsJson) => void, onEnd: (error?: unknown) => void): { close(): void };
  /** One sample with its previous one (Docker's `stream=false`: about 1–2 s). */
  once(containerId: string): Promise<DockerStatsJson>;
  /** Running, OOMKilled and RestartCount from inspecting the container (cheap). */
  facts(containerId: string): Promise<ContainerStateFacts>;
  /** SizeRw: inspect with size, which makes Docker walk the writable layer (expensive). */
  sizeRw(containerId: string): Promise<number>;
}

/** Who watches one container: gets every sample, and the end. */
export interface StatsListener {
  onSample(sample: ContainerStatsSample): void;
  /** The watch ended by itself: the container stopped (no error) or the engine failed. */
  onEnd(error?: unknown): void;
}

export interface StatsHubOptions {
  source: StatsSource;
  logger: Logger;
  /** How often a watched container's OOMKilled/RestartCount/running are read again (default 10 s). */
  factsEveryMs?: number;
  /** Least time between two SizeRw samples of one container (default 5 minutes). */
  sizeEveryMs?: number;
  /** Longest wait of a one-shot for a first SizeRw (default 2 s; later calls get the cached one). */
  sizeWaitMs?: number;
  now?: () => Date;
}

interface Watched {
  listeners: Set<StatsListener>;
  facts: ContainerStateFacts | undefined;
  latest: ContainerStatsSample | undefined;
  stream: { close(): void } | undefined;
  factsTimer: NodeJS.Timeout | undefined;
  closed: boolean;
}

interface SizeEntry {
  bytes: number;
  at: Date;
}

/**
 * One Docker stats sampling (a poll loop) per watched container however many callers watch it, and none when
 * nobody does: the first watcher opens the stream, every later one shares it, and the last one
 * to leave closes it. While watched, OOMKilled/RestartCount are read again every `factsEveryMs`
 * (a container that stopped ends the watch); SizeRw at most every `sizeEveryMs` per container,
 * watched or asked once (Docker walks the layer to compute it).
 */
export class StatsHub {
  private readonly watched = new Map<string, Watched>();
  private readonly sizes = new Map<string, SizeEntry>();
  private readonly sizing = new Map<string, Promise<SizeEntry | undefined>>();
  private readonly factsEveryMs: number;
  private readonly sizeEveryMs: number;
  private readonly sizeWaitMs: number;
  private readonly now: () => Date;

  constructor(private readonly options: StatsHubOptions) {
    this.factsEveryMs = options.factsEveryMs ?? 10_000;
    this.sizeEveryMs = options.sizeEveryMs ?? 5 * 60_000;
    this.sizeWaitMs = options.sizeWaitMs ?? 2_000;
    this.now = options.now ?? (() => new Date());
  }

  /** Docker stats samplings running now (one per watched container). */
  openStreams(): number {
    let open = 0;
    for (const entry of this.watched.values()) if (entry.stream) open += 1;
    return open;
  }

  /** Watchers of one container now. */
  watchers(containerId: string): number {
    return this.watched.get(containerId)?.listeners.size ?? 0;
  }

  /** The latest sample of a watched container; undefined when nobody watches it (or no sample yet). */
  latest(containerId: string): ContainerStatsSample | undefined {
    return this.watched.get(containerId)?.latest;
  }

  /** Starts watching; the returned function stops (the last one to stop closes the stream). */
  watch(containerId: string, listener: StatsListener): () => void {
    let entry = this.watched.get(containerId);
    if (!entry) {
      entry = { listeners: new Set(), facts: undefined, latest: undefined, stream: undefined, factsTimer: undefined, closed: false };
      this.watched.set(containerId, entry);
      this.start(containerId, entry);
    }
    entry.listeners.add(listener);
    // A later watcher sees the latest sample at once instead of waiting for the next one.
    if (entry.latest) listener.onSample(entry.latest);
    const watchedEntry = entry;
    return () => {
      if (!watchedEntry.listeners.delete(listener)) return;
      if (watchedEntry.listeners.size === 0) this.close(containerId, watchedEntry);
    };
  }

  /**
   * One sample: the watch's latest while the container is watched, else two samples from Docker
   * (with the state facts and, waited for at most `sizeWaitMs`, SizeRw).
   */
  async sample(containerId: string): Promise<ContainerStatsSample> {
    const latest = this.watched.get(containerId)?.latest;
    if (latest) return latest;
    const { source } = this.options;
    const [json, facts] = await Promise.all([source.once(containerId), source.facts(containerId), this.sizeWithin(containerId, this.sizeWaitMs)]);
    return statsSample(containerId, json, facts, this.sizes.get(containerId));
  }

  /** Ends every watch (agent shutdown): listeners get onEnd with `error`. */
  endAll(error?: unknown): void {
    for (const [containerId, entry] of [...this.watched]) this.end(containerId, entry, error);
  }

  private start(containerId: string, entry: Watched): void {
    const { source, logger } = this.options;
    const readFacts = async (): Promise<void> => {
      try {
        const facts = await source.facts(containerId);
        if (entry.closed) return;
        entry.facts = facts;
        if (!facts.running) this.end(containerId, entry);
      } catch (error) {
        if (!entry.closed) this.end(containerId, entry, error);
      }
    };
    void readFacts().then(() => {
      if (entry.closed) return;
      entry.factsTimer = setInterval(() => void readFacts(), this.factsEveryMs);
      entry.factsTimer.unref();
      entry.stream = source.open(
        containerId,
        (json) => {
          if (entry.closed) return;
          // Docker's zero time: the container is not running (any more).
          if (isZeroRead(json)) return this.end(containerId, entry);
          this.refreshSize(containerId);
          const sample = statsSample(containerId, json, entry.facts ?? { oomKilled: false, restartCount: 0 }, this.sizes.get(containerId));
          entry.latest = sample;
          for (const listener of [...entry.listeners]) listener.onSample(sample);
        },
        (error) => {
          if (entry.closed) return;
          if (error) logger.debug({ err: error, containerId }, 'the Docker stats stream failed');
          // The stream is gone either way: do not close it again.
          entry.stream = undefined;
          this.end(containerId, entry, error);
        },
      );
    });
  }

  /** The last listener left: stop everything of this container. */
  private close(containerId: string, entry: Watched): void {
    if (entry.closed) return;
    entry.closed = true;
    clearInterval(entry.factsTimer);
    entry.stream?.close();
    entry.stream = undefined;
    if (this.watched.get(containerId) === entry) this.watched.delete(containerId);
  }

  /** The watch ends by itself (container stopped, engine failed): close, then tell every listener. */
  private end(containerId: string, entry: Watched, error?: unknown): void {
    if (entry.closed) return;
    const listeners = [...entry.listeners];
    entry.listeners.clear();
    this.close(containerId, entry);
    for (const listener of listeners) listener.onEnd(error);
  }

  /** Starts a SizeRw sample when the last is older than `sizeEveryMs` (one at a time per container). */
  private refreshSize(containerId: string): Promise<SizeEntry | undefined> {
    const pending = this.sizing.get(containerId);
    if (pending) return pending;
    const known = this.sizes.get(containerId);
    if (known && this.now().getTime() - known.at.getTime() < this.sizeEveryMs) return Promise.resolve(known);
    const work = this.options.source
      .sizeRw(containerId)
      .then((bytes) => {
        const entry = { bytes, at: this.now() };
        this.sizes.set(containerId, entry);
        this.pruneSizes();
        return entry;
      })
      .catch((error: unknown) => {
        this.options.logger.debug({ err: error, containerId }, 'could not read the writable layer size');
        return undefined;
      })
      .finally(() => this.sizing.delete(containerId));
    this.sizing.set(containerId, work);
    return work;
  }

  private async sizeWithin(containerId: string, ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.refreshSize(containerId), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }

  /** Sizes of containers nobody asked about for twice the interval are forgotten. */
  private pruneSizes(): void {
    const cutoff = this.now().getTime() - 2 * this.sizeEveryMs;
    for (const [containerId, entry] of this.sizes) {
      if (entry.at.getTime() < cutoff && !this.watched.has(containerId)) this.sizes.delete(containerId);
    }
  }
}

/** Running, OOMKilled and RestartCount of one container (one inspect). */
/** One stats reading of a container (`stream: false`: Docker waits for two samples, ~2 s, to give CPU %). */
export async function sampleContainerStats(docker: DockerEngine, containerId: string): Promise<DockerStatsJson> {
  try {
    return (await docker.container(containerId).stats({ oneShot: false })) as DockerStatsJson;
  } catch (error) {
    throw translateDockerError(error, 'container stats');
  }
}

export async function inspectFacts(docker: DockerEngine, containerId: string): Promise<ContainerStateFacts> {
  try {
    const info = await docker.container(containerId).inspect();
    return { running: info.State.Running, oomKilled: info.State.OOMKilled, restartCount: info.RestartCount };
  } catch (error) {
    throw translateDockerError(error, 'inspect container');
  }
}

/**
 * The hub's source on the Docker engine (engine.ts). A watch asks
 * Docker for one sample every `intervalMs` (`one-shot=true`: answered at once, without Docker's
 * second sample) and computes CPU % against its own previous sample; the second sample comes
 * after at most 1 s, so the first CPU % is there quickly. Docker's own stream would sample every
 * second, which costs dockerd and containerd about five times more at 5 s (bench/container-stats).
 */
export function engineStatsSource(docker: DockerEngine, options: { intervalMs: number }): StatsSource {
  return {
    open(containerId, onSample, onEnd) {
      let closed = false;
      let timer: NodeJS.Timeout | undefined;
      let previous: DockerStatsJson['cpu_stats'];
      const poll = async (): Promise<void> => {
        try {
          const json = (await docker.container(containerId).stats({ oneShot: true })) as DockerStatsJson;
          if (closed) return;
          const first = previous === undefined;
          onSample({ ...json, precpu_stats: previous ?? {} });
          previous = json.cpu_stats;
          if (!closed) timer = setTimeout(() => void poll(), first ? Math.min(1_000, options.intervalMs) : options.intervalMs);
        } catch (error) {
          if (closed) return;
          closed = true;
          onEnd(translateDockerError(error, 'container stats'));
        }
      };
      void poll();
      return {
        close() {
          closed = true;
          clearTimeout(timer);
        },
      };
    },
    once: (containerId) => sampleContainerStats(docker, containerId),
    facts: (containerId) => inspectFacts(docker, containerId),
    async sizeRw(containerId) {
      const info = await docker.container(containerId).inspect({ size: true });
      return typeof info.SizeRw === 'number' ? info.SizeRw : 0;
    },
  };
}
