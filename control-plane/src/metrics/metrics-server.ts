import type { Logger } from 'pino';
import { type HealthReport, type RunningOperatorListener, startOperatorListener } from '@devplein/server-kit/operator-listener';
import type { ContainerApi } from '../agent/host-apis.ts';
import type { ControlPlaneMetrics } from './metrics.ts';

export type { HealthReport } from '@devplein/server-kit/operator-listener';
export { parseListen } from '@devplein/server-kit/operator-listener';

export interface MetricsServerOptions {
  /** host:port (METRICS_LISTEN); port 0 takes a free one. */
  listen: string;
  metrics: ControlPlaneMetrics;
  /** The agent's container list, asked once per scrape for devplein_containers{state}. */
  containers: Pick<ContainerApi, 'list'>;
  /** Time the container list may take per scrape (a slow agent must not stall Prometheus). */
  containerListTimeoutMs?: number;
  health: () => Promise<HealthReport>;
  logger: Logger;
}

export type RunningMetricsServer = RunningOperatorListener;

/** Counts containers by Docker state. */
export function countByState(containers: ReadonlyArray<{ state: string }>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const container of containers) {
    const state = container.state || 'unknown';
    counts.set(state, (counts.get(state) ?? 0) + 1);
  }
  return counts;
}

/** Asks the agent for its managed containers and records the counts (null on failure). */
export async function refreshContainerStates(options: Pick<MetricsServerOptions, 'metrics' | 'containers' | 'containerListTimeoutMs' | 'logger'>): Promise<void> {
  try {
    const list = await options.containers.list({}, { deadlineMs: options.containerListTimeoutMs ?? 2_000 });
    options.metrics.setContainerStates(countByState(list));
  } catch (error) {
    options.logger.debug({ err: error }, 'metrics: container list failed; keeping the previous counts');
    options.metrics.setContainerStates(null);
  }
}

/**
 * The control plane's second HTTP listener: GET /metrics (the container counts are asked of the
 * agent per scrape) and GET /healthz (the app's own health check).
 */
export function startMetricsServer(options: MetricsServerOptions): Promise<RunningMetricsServer> {
  return startOperatorListener({
    listen: options.listen,
    registry: options.metrics.registry,
    beforeScrape: () => refreshContainerStates(options),
    health: options.health,
    logger: options.logger,
  });
}
