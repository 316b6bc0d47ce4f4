/**
 * GET /api/user/container/{name}/stats: a running container's live use for the student's card
 * (issue 22). The web app polls it every STATS_POLL_MS; the control plane serves every tab of
 * one container from one agent stream and keeps the last STATS_HISTORY_MS as points.
 */

/** How often the dockers page asks (ms). */
export const STATS_POLL_MS = 5_000;
/** How far back the sparkline goes (ms). */
export const STATS_HISTORY_MS = 5 * 60_000;
/** From this share of the memory limit on, the card warns. */
export const MEMORY_WARNING_SHARE = 0.9;

/** One point of the sparkline. */
export interface StatsPointJson {
  /** ISO time of the sample. */
  at: string;
  cpuPercent: number;
  memoryUsedBytes: number;
}

export interface LiveContainerStatsJson {
  status: 'live';
  /** ISO time of the latest sample. */
  readAt: string;
  /** Percent of one CPU (as `docker stats`). */
  cpuPercent: number;
  memoryUsedBytes: number;
  memoryLimitBytes: number;
  networkRxBytes: number;
  networkTxBytes: number;
  blockReadBytes: number;
  blockWriteBytes: number;
  pids: number;
  /** Docker's State.OOMKilled: the kernel stopped the container for memory at its last exit. */
  oomKilled: boolean;
  /** How often Docker restarted the container by itself. */
  restartCount: number;
  /** The writable layer's size (sampled at most every 5 minutes); null until known. */
  sizeRwBytes: number | null;
  /** Oldest first, at most STATS_HISTORY_MS back. */
  history: StatsPointJson[];
}

/**
 * `not-running`: the container does not run (nothing to measure); `unsupported`: the dev
 * server's agent is too old for live stats; `starting`: the first sample is on its way;
 * `failed`: the agent could not measure it.
 */
export type ContainerStatsJson = LiveContainerStatsJson | { status: 'not-running' | 'unsupported' | 'starting' | 'failed' };
