import type { Logger } from 'pino';
import { type RunningOperatorListener, startOperatorListener } from '@devplein/server-kit/operator-listener';
import type { CapabilityReport } from '../capabilities.ts';
import type { AgentMetrics } from './metrics.ts';

export interface AgentMetricsServerOptions {
  /** host:port (AGENT_METRICS_LISTEN); port 0 takes a free one. */
  listen: string;
  metrics: AgentMetrics;
  /** The capability probe (each probe has its own short timeout). */
  probe: () => Promise<CapabilityReport>;
  /** Upper bound of the whole probe for one /healthz answer. */
  probeTimeoutMs: number;
  isShuttingDown: () => boolean;
  agentVersion: string;
  logger: Logger;
}

export type RunningAgentMetricsServer = RunningOperatorListener;

/** available/detail per facility, or null when the probe did not finish in time. */
async function probeWithin(probe: () => Promise<CapabilityReport>, timeoutMs: number): Promise<CapabilityReport | null> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      probe(),
      new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), timeoutMs);
      }),
    ]);
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The agent's HTTP listener for operators: GET /healthz (200 `{status:'ok', capabilities}` while
 * serving, 503 while shutting down; a facility that is down is reported, not fatal) and GET
 * /metrics (Prometheus text format).
 */
export function startAgentMetricsServer(options: AgentMetricsServerOptions): Promise<RunningAgentMetricsServer> {
  const startedAt = Date.now();
  return startOperatorListener({
    listen: options.listen,
    registry: options.metrics.registry,
    logger: options.logger,
    health: async () => {
      if (options.isShuttingDown()) return { healthy: false, body: { status: 'shutting_down' } };
      const report = await probeWithin(options.probe, options.probeTimeoutMs);
      const capabilities = report
        ? Object.fromEntries(Object.entries(report).map(([name, state]) => [name, { available: state.available, detail: state.detail }]))
        : null;
      return {
        healthy: true,
        body: { status: 'ok', agentVersion: options.agentVersion, uptimeSeconds: Math.round((Date.now() - startedAt) / 1000), capabilities },
      };
    },
  });
}
