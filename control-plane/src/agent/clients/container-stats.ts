import type { ContainerStats, ContainerStatsServiceClient, GetContainerStatsResponse, ListContainerStatsResponse, WatchContainerStatsResponse } from '@devplein/proto/container_stats';
import type { StreamCall, StreamCallOptions } from '../grpc-stream.ts';
import type { UnaryCall } from '../grpc-unary.ts';
import type { AgentCallOptions } from '../call-options.ts';
import { type ContainerTarget, containerRef } from '../container-views.ts';

/** What a reader of a stats watch (services/container-stats-watches.ts) gets: the latest sample and the last few minutes. */
export type StatsSnapshot =
  | { status: 'live'; current: ContainerStatsView; history: StatsPoint[] }
  /** The agent refused: the container is not running (or not there). */
  | { status: 'not-running' }
  /** The agent is older than contract 1.6.0. */
  | { status: 'unsupported' }
  /** The watch runs but the agent's first sample has not come yet. */
  | { status: 'starting' }
  /** The agent answered with a failure of its own (logged). */
  | { status: 'failed' };

/** One point of the sparkline: when, CPU % and memory in use. */
export interface StatsPoint {
  at: Date;
  cpuPercent: number;
  memoryUsedBytes: number;
}

/** One sample of one container as plain values (ContainerStats; no proto message leaves the agent client). */
export interface ContainerStatsView {
  containerId: string;
  readAt: Date;
  cpuPercent: number;
  onlineCpus: number;
  memoryUsedBytes: number;
  memoryLimitBytes: number;
  networkRxBytes: number;
  networkTxBytes: number;
  blockReadBytes: number;
  blockWriteBytes: number;
  pids: number;
  oomKilled: boolean;
  restartCount: number;
  /** null until the agent sampled the writable layer (at most every 5 minutes). */
  sizeRw: { bytes: number; at: Date } | null;
}

/** One running managed container of a sweep (ListContainerStats). */
export interface RunningContainerStatsView {
  /** Without the leading slash. */
  name: string;
  projectId: number;
  stats: ContainerStatsView;
}

/** Every running managed container of one dev server at once, with when the agent's sweep began. */
export interface ContainerStatsSweepView {
  sweptAt: Date;
  containers: RunningContainerStatsView[];
}

/** ContainerStatsService over the link (contract 1.6.0; an older agent answers UNIMPLEMENTED). */
export interface ContainerStatsApi {
  getContainerStats(target: ContainerTarget, options?: AgentCallOptions): Promise<ContainerStatsView | null>;
  watchContainerStats(target: ContainerTarget, options?: StreamCallOptions): AsyncIterable<ContainerStatsView | null>;
  /** A current sample of every running managed container (the agent shares one sweep among callers for 15 s). */
  listContainerStats(options?: AgentCallOptions): Promise<ContainerStatsSweepView>;
}

export function containerStatsView(stats: ContainerStats | undefined): ContainerStatsView | null {
  if (!stats) return null;
  const { sizeRwBytes, sizeRwAt, readAt, ...rest } = stats;
  return { ...rest, readAt: readAt ?? new Date(), sizeRw: sizeRwAt ? { bytes: sizeRwBytes, at: sizeRwAt } : null };
}

export function containerStatsSweepView(response: ListContainerStatsResponse): ContainerStatsSweepView {
  return {
    sweptAt: response.sweptAt ?? new Date(),
    containers: response.containers.flatMap((entry) => {
      const stats = containerStatsView(entry.stats);
      return stats ? [{ name: entry.name, projectId: Number(entry.projectId), stats }] : [];
    }),
  };
}

export function createContainerStatsClient(client: ContainerStatsServiceClient, calls: { unary: UnaryCall; stream: StreamCall }): ContainerStatsApi {
  return {
    getContainerStats: async (target, callOptions) =>
      containerStatsView(
        (
          await calls.unary<GetContainerStatsResponse>(
            'GetContainerStats',
            (md, opts, cb) => client.getContainerStats({ container: containerRef(target) }, md, opts, cb),
            // Without a watch Docker takes two samples (~2 s): more than the usual deadline's share.
            { deadlineMs: 10_000, ...callOptions },
          )
        ).stats,
      ),
    listContainerStats: async (callOptions) =>
      containerStatsSweepView(
        await calls.unary<ListContainerStatsResponse>(
          'ListContainerStats',
          (md, opts, cb) => client.listContainerStats({}, md, opts, cb),
          // A sweep of every running container takes a second or two (two samples for CPU %).
          { deadlineMs: 15_000, ...callOptions },
        ),
      ),
    watchContainerStats: (target, streamOptions) =>
      calls.stream(
        'WatchContainerStats',
        (md, opts) => client.watchContainerStats({ container: containerRef(target) }, md, opts),
        (message: WatchContainerStatsResponse) => containerStatsView(message.stats),
        streamOptions,
      ),
  };
}
