import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { ContainerApi } from '../agent/host-apis.ts';
import type { ControlPlaneMetrics } from './metrics.ts';

/** What /healthz on the metrics port reports; main.ts passes the app's own health check. */
export interface HealthReport {
  healthy: boolean;
  body: Record<string, unknown>;
}

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

export interface RunningMetricsServer {
  /** The port actually bound. */
  port: number;
  close(): Promise<void>;
}

/** Splits `host:port` (`[::1]:9464` too); throws on anything else. */
export function parseListen(listen: string): { host: string; port: number } {
  const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(listen.trim());
  const port = Number(match?.[2]);
  if (!match?.[1] || !(port >= 0 && port <= 65_535)) throw new Error(`expected host:port, got "${listen}"`);
  return { host: match[1].replace(/^\[|\]$/g, ''), port };
}

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
 * The control plane's second HTTP listener: GET /metrics (Prometheus text format) and GET
 * /healthz. Bind it to loopback or a monitoring network only; the public reverse proxy never
 * forwards to it. Anything else answers 404.
 */
export async function startMetricsServer(options: MetricsServerOptions): Promise<RunningMetricsServer> {
  const { host, port } = parseListen(options.listen);
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const answer = (status: number, contentType: string, body: string): void => {
      response.writeHead(status, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
      response.end(request.method === 'HEAD' ? undefined : body);
    };
    if (request.method !== 'GET' && request.method !== 'HEAD') return answer(405, 'text/plain; charset=utf-8', 'method not allowed\n');
    if (path === '/metrics') {
      void refreshContainerStates(options)
        .then(() => options.metrics.registry.metrics())
        .then(
          (text) => answer(200, options.metrics.registry.contentType, text),
          (error: unknown) => {
            options.logger.warn({ err: error }, 'metrics: collecting failed');
            answer(500, 'text/plain; charset=utf-8', 'collecting metrics failed\n');
          },
        );
      return;
    }
    if (path === '/healthz') {
      void options.health().then(
        (report) => answer(report.healthy ? 200 : 503, 'application/json', JSON.stringify(report.body)),
        () => answer(503, 'application/json', JSON.stringify({ status: 'down' })),
      );
      return;
    }
    answer(404, 'text/plain; charset=utf-8', 'not found\n');
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        // A scrape in flight is not worth waiting for (Prometheus retries); keep-alive ones never end.
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
