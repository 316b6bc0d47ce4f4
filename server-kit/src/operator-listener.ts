/**
 * The operators' HTTP listener of a devplein process (control plane or host agent): GET /metrics
 * in Prometheus text format and GET /healthz as JSON, on an address of its own that is bound to
 * loopback or a monitoring network and never reached through the public reverse proxy. Anything
 * else answers 404 (405 for other methods). Each process brings its own registry and health check.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';

/** The part of a prom-client Registry the listener uses. */
export interface MetricsRegistry {
  metrics(): Promise<string>;
  readonly contentType: string;
}

/** What /healthz answers: 200 when healthy, 503 otherwise, with `body` as JSON. */
export interface HealthReport {
  healthy: boolean;
  body: Record<string, unknown>;
}

export interface OperatorListenerOptions {
  /** host:port (`[::1]:9464` too); port 0 takes a free one. */
  listen: string;
  registry: MetricsRegistry;
  /** Runs before each scrape, for gauges that are read on demand (it must bound its own time). */
  beforeScrape?: () => Promise<void>;
  health: () => Promise<HealthReport>;
  logger: Logger;
}

export interface RunningOperatorListener {
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

export async function startOperatorListener(options: OperatorListenerOptions): Promise<RunningOperatorListener> {
  const { host, port } = parseListen(options.listen);
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const answer = (status: number, contentType: string, body: string): void => {
      response.writeHead(status, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
      response.end(request.method === 'HEAD' ? undefined : body);
    };
    if (request.method !== 'GET' && request.method !== 'HEAD') return answer(405, 'text/plain; charset=utf-8', 'method not allowed\n');
    if (path === '/metrics') {
      void (options.beforeScrape?.() ?? Promise.resolve())
        .then(() => options.registry.metrics())
        .then(
          (text) => answer(200, options.registry.contentType, text),
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
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        // A scrape in flight is not worth waiting for (Prometheus retries); keep-alive ones never end.
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
