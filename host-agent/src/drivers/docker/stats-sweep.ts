import type Docker from 'dockerode';
import type { Logger } from 'pino';
import { type ContainerStateFacts, type ContainerStatsSample, type DockerStatsJson, isZeroRead, statsSample } from './container-stats.ts';
import { translateDockerError } from './docker-errors.ts';
import { inspectFacts } from './stats-hub.ts';

/** How a sweep reaches the engine (dockerode in the agent, a fake in unit tests). */
export interface SweepSource {
  /** The running managed containers now. */
  running(): Promise<Array<{ id: string; name: string; projectId: number }>>;
  /** One sample answered at once (Docker's `one-shot=true`: no second sample, so no CPU % by itself). */
  oneShot(containerId: string): Promise<DockerStatsJson>;
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
  /** Calls to the engine at once (default 8). */
  concurrency?: number;
  /** How long a sweep answers every caller (default 15 s). */
  cacheMs?: number;
  /** Time between the two samples CPU % is computed from (default 1 s). */
  cpuWindowMs?: number;
  now?: () => Date;
  sleep?: (ms: number) => Promise<void>;
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

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A current sample of every running managed container (ListContainerStats, the teachers' top
 * lists). Cost of one sweep of N containers: one container list, then N `one-shot` stats calls,
 * a pause of `cpuWindowMs` (CPU % needs two samples), N more `one-shot` calls and N inspects
 * (OOMKilled, RestartCount), at most `concurrency` engine calls at once; no SizeRw (Docker would
 * walk every writable layer). About 1.2 s and well under a second of dockerd CPU for 50
 * containers (bench/container-stats-sweep.ts). Docker's own `stream=false` would wait ~2 s per
 * container for its second sample instead. A sweep is kept `cacheMs` (15 s): every caller in that
 * time, and every caller while it runs, gets the same one, so several teachers' pages cost one.
 */
export class StatsSweeper {
  private cached: { at: number; sweep: Promise<Sweep> } | undefined;
  private readonly concurrency: number;
  private readonly cacheMs: number;
  private readonly cpuWindowMs: number;
  private readonly now: () => Date;
  private readonly sleep: (ms: number) => Promise<void>;
  /** Sweeps run since the start (the tests and the bench read it). */
  sweeps = 0;

  constructor(private readonly options: StatsSweeperOptions) {
    this.concurrency = options.concurrency ?? 8;
    this.cacheMs = options.cacheMs ?? 15_000;
    this.cpuWindowMs = options.cpuWindowMs ?? 1_000;
    this.now = options.now ?? (() => new Date());
    this.sleep = options.sleep ?? defaultSleep;
  }

  /** The sweep of the last `cacheMs`, or a new one (one at a time: callers during a sweep share it). */
  current(): Promise<Sweep> {
    const now = this.now().getTime();
    if (this.cached && now - this.cached.at < this.cacheMs) return this.cached.sweep;
    const sweep = this.sweep();
    const entry = { at: now, sweep };
    this.cached = entry;
    // A failed sweep is not kept: the next caller tries again.
    sweep.catch(() => {
      if (this.cached === entry) this.cached = undefined;
    });
    return sweep;
  }

  private async sweep(): Promise<Sweep> {
    const { source, logger, watchedSample } = this.options;
    this.sweeps += 1;
    const sweptAt = this.now();
    const running = await source.running();
    const unwatched = running.filter((container) => !watchedSample?.(container.id));
    // A container that stops (or goes) during the sweep is left out, never fails the sweep.
    const quietly = async <T>(containerId: string, call: () => Promise<T>): Promise<T | undefined> => {
      try {
        return await call();
      } catch (error) {
        logger.debug({ err: error, containerId }, 'no stats sample of this container in the sweep');
        return undefined;
      }
    };
    const first = await mapBounded(unwatched, this.concurrency, (container) => quietly(container.id, () => source.oneShot(container.id)));
    await this.sleep(this.cpuWindowMs);
    const second = await mapBounded(unwatched, this.concurrency, (container) =>
      quietly(container.id, async () => ({ json: await source.oneShot(container.id), facts: await source.facts(container.id) })),
    );
    const samples = new Map<string, ContainerStatsSample>();
    unwatched.forEach((container, index) => {
      const before = first[index];
      const after = second[index];
      if (!before || !after || isZeroRead(before) || isZeroRead(after.json) || !after.facts.running) return;
      samples.set(container.id, statsSample(container.id, { ...after.json, precpu_stats: before.cpu_stats ?? {} }, after.facts, undefined));
    });
    const containers: SweptContainer[] = [];
    for (const container of running) {
      const stats = watchedSample?.(container.id) ?? samples.get(container.id);
      if (stats) containers.push({ name: container.name, projectId: container.projectId, stats });
    }
    return { sweptAt, containers };
  }
}

/** The sweep's source on dockerode: managed running containers on the agent's network. */
export function dockerodeSweepSource(docker: Docker, options: { network: string; managedLabel: string; projectIdLabel: string }): SweepSource {
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
    async oneShot(containerId) {
      try {
        return (await docker.getContainer(containerId).stats({ stream: false, 'one-shot': true })) as DockerStatsJson;
      } catch (error) {
        throw translateDockerError(error, 'container stats');
      }
    },
    facts: (containerId) => inspectFacts(docker, containerId),
  };
}
