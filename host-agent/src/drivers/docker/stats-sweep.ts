import type { DockerEngine } from './engine.ts';
import type { Logger } from 'pino';
import { type ContainerStateFacts, type ContainerStatsSample, type DockerStatsJson, isZeroRead, statsSample } from './container-stats.ts';
import { translateDockerError } from './docker-errors.ts';
import { inspectFacts, sampleContainerStats } from './stats-hub.ts';

/** How a sweep reaches the engine (the engine in the agent, a fake in unit tests). */
export interface SweepSource {
  /** The running managed containers now. */
  running(): Promise<Array<{ id: string; name: string; projectId: number }>>;
  /** One sample with its previous one (Docker's `stream=false`: CPU % from two collector ticks, 1–2 s). */
  once(containerId: string): Promise<DockerStatsJson>;
  /** Running, OOMKilled and RestartCount (one inspect). */
  facts(containerId: string): Promise<ContainerStateFacts>;
}

/** One running managed container with its sample. */
export interface SweptContainer {
  name: string;
  projectId: number;
  stats: ContainerStatsSample;
}

export interface Sweep {
  sweptAt: Date;
  containers: SweptContainer[];
}

export interface StatsSweeperOptions {
  source: SweepSource;
  logger: Logger;
  /** The latest sample of a watched container (the StatsHub's), used instead of asking Docker. */
  watchedSample?: (containerId: string) => ContainerStatsSample | undefined;
  /** Containers sampled at once (default 64). */
  concurrency?: number;
  /** How long a finished sweep answers every caller (default 15 s). */
  cacheMs?: number;
  now?: () => Date;
}

/** Runs `work` over `items` with at most `limit` at once; the answers keep the items' order. */
export async function mapBounded<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
  return results;
}

/**
 * A current sample of every running managed container (ListContainerStats, the teachers' top
 * lists). Cost of one sweep of N containers: one container list, then per container one
 * `stream=false` stats call and one inspect (OOMKilled, RestartCount), at most `concurrency`
 * containers at once; no SizeRw (Docker would walk every writable layer). Docker answers stats
 * from its collector, which samples every subscribed container once a second: all the calls
 * waiting at once are answered by the same two ticks, so the bound is high (64): a sweep of 50
 * took 2.5–3.7 s of wall time and 0.3–0.9 s of CPU of the agent, dockerd and containerd together
 * on the 2-core test machine (bench/container-stats-sweep.bench.ts). With a bound of 8 (and two
 * one-shot samples a second apart) the same sweep took 15–18 s: each wave waited for its own ticks. A finished sweep is kept `cacheMs` (15 s):
 * every caller in that time, and every caller while it runs, gets the same one, so several
 * teachers' pages cost one sweep.
 */
export class StatsSweeper {
  private cached: { finishedAt: number | undefined; sweep: Promise<Sweep> } | undefined;
  private readonly concurrency: number;
  private readonly cacheMs: number;
  private readonly now: () => Date;
  /** Sweeps run since the start (the tests and the bench read it). */
  sweeps = 0;

  constructor(private readonly options: StatsSweeperOptions) {
    this.concurrency = options.concurrency ?? 64;
    this.cacheMs = options.cacheMs ?? 15_000;
    this.now = options.now ?? (() => new Date());
  }

  /** The sweep running now or finished in the last `cacheMs`, or a new one. */
  current(): Promise<Sweep> {
    const cached = this.cached;
    if (cached && (cached.finishedAt === undefined || this.now().getTime() - cached.finishedAt < this.cacheMs)) return cached.sweep;
    const entry: { finishedAt: number | undefined; sweep: Promise<Sweep> } = { finishedAt: undefined, sweep: this.sweep() };
    this.cached = entry;
    entry.sweep.then(
      () => {
        entry.finishedAt = this.now().getTime();
      },
      // A failed sweep is not kept: the next caller tries again.
      () => {
        if (this.cached === entry) this.cached = undefined;
      },
    );
    return entry.sweep;
  }

  private async sweep(): Promise<Sweep> {
    const { source, logger, watchedSample } = this.options;
    this.sweeps += 1;
    const sweptAt = this.now();
    const running = await source.running();
    const samples = await mapBounded(running, this.concurrency, async (container): Promise<ContainerStatsSample | undefined> => {
      const watched = watchedSample?.(container.id);
      if (watched) return watched;
      try {
        const [json, facts] = await Promise.all([source.once(container.id), source.facts(container.id)]);
        // A container that stopped (or went) during the sweep is left out, never fails the sweep.
        if (isZeroRead(json) || !facts.running) return undefined;
        return statsSample(container.id, json, facts, undefined);
      } catch (error) {
        logger.debug({ err: error, containerId: container.id }, 'no stats sample of this container in the sweep');
        return undefined;
      }
    });
    const containers: SweptContainer[] = [];
    running.forEach((container, index) => {
      const stats = samples[index];
      if (stats) containers.push({ name: container.name, projectId: container.projectId, stats });
    });
    return { sweptAt, containers };
  }
}

/** The sweep's source on the engine: managed running containers on the agent's network. */
export function engineSweepSource(docker: DockerEngine, options: { network: string; managedLabel: string; projectIdLabel: string }): SweepSource {
  return {
    async running() {
      try {
        const infos = await docker.listContainers({ filters: { status: ['running'], label: [options.managedLabel], network: [options.network] } });
        return infos.map((info) => ({
          id: info.Id,
          name: (info.Names?.[0] ?? info.Id).replace(/^\//, ''),
          projectId: Number(info.Labels?.[options.projectIdLabel]) || 0,
        }));
      } catch (error) {
        throw translateDockerError(error, 'listing containers');
      }
    },
    once: (containerId) => sampleContainerStats(docker, containerId),
    facts: (containerId) => inspectFacts(docker, containerId),
  };
}
