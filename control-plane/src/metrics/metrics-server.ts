import type { Logger } from 'pino';
import { type HealthReport, type RunningOperatorListener, startOperatorListener } from '@devplein/server-kit/operator-listener';
import type { AgentFleet } from '../agent/agent-fleet.ts';
import type { ControlPlaneMetrics } from './metrics.ts';

export type { HealthReport } from '@devplein/server-kit/operator-listener';
export { parseListen } from '@devplein/server-kit/operator-listener';

export interface MetricsServerOptions {
  /** host:port (METRICS_LISTEN); port 0 takes a free one. */
  listen: string;
  metrics: ControlPlaneMetrics;
  /** Every dev server's agent: each is asked for its container list per scrape (devplein_containers{host,state}). */
  agents: Pick<AgentFleet, 'links'>;
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

/** Asks every agent, at once, for its managed containers and records the counts (null for one that fails). */
export async function refreshContainerStates(options: Pick<MetricsServerOptions, 'metrics' | 'agents' | 'containerListTimeoutMs' | 'logger'>): Promise<void> {
  await Promise.all(
    options.agents.links.map(async (link) => {
      try {
        const list = await link.client.containers.listContainers({}, { deadlineMs: options.containerListTimeoutMs ?? 2_000 });
        options.metrics.setContainerStates(link.name, countByState(list));
      } catch (error) {
        options.logger.debug({ err: error, host: link.name }, 'metrics: container list failed; keeping the previous counts');
        options.metrics.setContainerStates(link.name, null);
      }
    }),
  );
}

/**
 * The control plane's second HTTP listener: GET /metrics (the container counts are asked of
 * every agent per scrape) and GET /healthz (the app's own health check).
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
