import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
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

export interface RunningAgentMetricsServer {
  port: number;
  close(): Promise<void>;
}

/** Splits `host:port` (`[::1]:9465` too). */
function parseListen(listen: string): { host: string; port: number } {
  const cut = listen.lastIndexOf(':');
  return { host: listen.slice(0, cut).replace(/^\[|\]$/g, ''), port: Number(listen.slice(cut + 1)) };
}

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
 * /metrics (Prometheus text format). Anything else is 404.
 */
export async function startAgentMetricsServer(options: AgentMetricsServerOptions): Promise<RunningAgentMetricsServer> {
  const { host, port } = parseListen(options.listen);
  const startedAt = Date.now();
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const answer = (status: number, contentType: string, body: string): void => {
      response.writeHead(status, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
      response.end(request.method === 'HEAD' ? undefined : body);
    };
    if (request.method !== 'GET' && request.method !== 'HEAD') return answer(405, 'text/plain; charset=utf-8', 'method not allowed\n');
    if (path === '/metrics') {
      options.metrics.registry.metrics().then(
        (text) => answer(200, options.metrics.registry.contentType, text),
        (error: unknown) => {
          options.logger.warn({ err: error }, 'metrics: collecting failed');
          answer(500, 'text/plain; charset=utf-8', 'collecting metrics failed\n');
        },
      );
      return;
    }
    if (path === '/healthz') {
      if (options.isShuttingDown()) return answer(503, 'application/json', JSON.stringify({ status: 'shutting_down' }));
      void probeWithin(options.probe, options.probeTimeoutMs).then((report) => {
        const capabilities = report
          ? Object.fromEntries(Object.entries(report).map(([name, state]) => [name, { available: state.available, detail: state.detail }]))
          : null;
        answer(
          200,
          'application/json',
          JSON.stringify({
            status: 'ok',
            agentVersion: options.agentVersion,
            uptimeSeconds: Math.round((Date.now() - startedAt) / 1000),
            capabilities,
          }),
        );
      });
      return;
    }
    answer(404, 'text/plain; charset=utf-8', 'not found\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
