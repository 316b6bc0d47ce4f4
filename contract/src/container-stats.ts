/**
 * GET /api/user/container/{name}/stats: a running container's live use for the student's card
 * (issue 22). The web app polls it every STATS_POLL_MS; the control plane serves every tab of
 * one container from one agent stream and keeps the last STATS_HISTORY_MS as points.
 */
import { z } from 'zod';

/** How often the dockers page asks (ms). */
export const STATS_POLL_MS = 5_000;
/** How far back the sparkline goes (ms). */
export const STATS_HISTORY_MS = 5 * 60_000;
/** From this share of the memory limit on, the card warns. */
export const MEMORY_WARNING_SHARE = 0.9;

/** One point of the sparkline. */
export const statsPointJson = z.strictObject({
  /** ISO time of the sample. */
  at: z.string(),
  cpuPercent: z.number(),
  memoryUsedBytes: z.number(),
});
export type StatsPointJson = z.infer<typeof statsPointJson>;

export const liveContainerStatsJson = z.strictObject({
  status: z.literal('live'),
  /** ISO time of the latest sample. */
  readAt: z.string(),
  /** Percent of one CPU (as `docker stats`). */
  cpuPercent: z.number(),
  memoryUsedBytes: z.number(),
  memoryLimitBytes: z.number(),
  networkRxBytes: z.number(),
  networkTxBytes: z.number(),
  blockReadBytes: z.number(),
  blockWriteBytes: z.number(),
  pids: z.number(),
  /** Docker's State.OOMKilled: the kernel stopped the container for memory at its last exit. */
  oomKilled: z.boolean(),
  /** How often Docker restarted the container by itself. */
  restartCount: z.number(),
  /** The writable layer's size (sampled at most every 5 minutes); null until known. */
  sizeRwBytes: z.number().nullable(),
  /** Oldest first, at most STATS_HISTORY_MS back. */
  history: z.array(statsPointJson),
});
export type LiveContainerStatsJson = z.infer<typeof liveContainerStatsJson>;

/**
 * `not-running`: the container does not run (nothing to measure); `unsupported`: the dev
 * server's agent is too old for live stats; `starting`: the first sample is on its way;
 * `failed`: the agent could not measure it.
 */
export const containerStatsJson = z.discriminatedUnion('status', [
  liveContainerStatsJson,
  z.strictObject({ status: z.enum(['not-running', 'unsupported', 'starting', 'failed']) }),
]);
export type ContainerStatsJson = z.infer<typeof containerStatsJson>;
