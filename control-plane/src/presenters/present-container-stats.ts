import type { ContainerStatsJson } from '@devplein/contract/container-stats';
import type { StatsSnapshot } from '../agent/clients/container-stats.ts';

/** GET /api/user/container/{name}/stats: the snapshot as the card reads it. */
export function presentContainerStats(snapshot: StatsSnapshot): ContainerStatsJson {
  if (snapshot.status !== 'live') return { status: snapshot.status };
  const { current, history } = snapshot;
  return {
    status: 'live',
    readAt: current.readAt.toISOString(),
    cpuPercent: current.cpuPercent,
    memoryUsedBytes: current.memoryUsedBytes,
    memoryLimitBytes: current.memoryLimitBytes,
    networkRxBytes: current.networkRxBytes,
    networkTxBytes: current.networkTxBytes,
    blockReadBytes: current.blockReadBytes,
    blockWriteBytes: current.blockWriteBytes,
    pids: current.pids,
    oomKilled: current.oomKilled,
    restartCount: current.restartCount,
    sizeRwBytes: current.sizeRw?.bytes ?? null,
    history: history.map((point) => ({ at: point.at.toISOString(), cpuPercent: point.cpuPercent, memoryUsedBytes: point.memoryUsedBytes })),
  };
}
