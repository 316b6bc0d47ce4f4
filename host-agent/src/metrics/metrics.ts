import * as grpc from '@grpc/grpc-js';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The agent's Prometheus metrics: default process metrics plus every gRPC call by method and
 * status code (recorded by metricsInterceptor). Served by metrics-server.ts on
 * AGENT_METRICS_LISTEN only, never on the gRPC port.
 */
export interface AgentMetrics {
  registry: Registry;
  /** One call ended: its full method path, its status code and its duration. */
  observeCall(methodPath: string, code: grpc.status, seconds: number): void;
  /** A request through the proxy seen in the access log, by a visitor or the agent's own screenshot browser. */
  countSiteRequest(source: 'visitor' | 'screenshotter'): void;
  /** The idle auto-stop stopped a container. */
  countIdleStop(): void;
}

/** `/devplein.agent.v1.ContainerService/ListContainers` → `ContainerService/ListContainers`. */
export function methodLabel(methodPath: string): string {
  const match = /^\/(?:[\w.]+\.)?(\w+)\/(\w+)$/.exec(methodPath);
  return match ? `${match[1]}/${match[2]}` : 'unknown';
}

export function createAgentMetrics(): AgentMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const calls = new Counter({
    name: 'devplein_agent_grpc_calls_total',
    help: 'gRPC calls the agent answered, by method and status code (refused ones too).',
    labelNames: ['method', 'code'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'devplein_agent_grpc_call_duration_seconds',
    help: 'Time from a gRPC call arriving to its status being sent, by method.',
    labelNames: ['method'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15, 30, 60, 120],
    registers: [registry],
  });
  const siteRequests = new Counter({
    name: 'devplein_agent_site_requests_total',
    help: "Requests through the proxy to the managed sites seen in Caddy's access log, by source (the screenshot browser's do not count as activity).",
    labelNames: ['source'] as const,
    registers: [registry],
  });
  const idleStops = new Counter({
    name: 'devplein_agent_idle_stops_total',
    help: 'Containers the idle auto-stop stopped (never removed).',
    registers: [registry],
  });
  return {
    registry,
    countSiteRequest: (source) => siteRequests.inc({ source }),
    countIdleStop: () => idleStops.inc(),
    observeCall(methodPath, code, seconds) {
      const method = methodLabel(methodPath);
      calls.inc({ method, code: grpc.status[code] ?? String(code) });
      duration.observe({ method }, seconds);
    },
  };
}

/** The site requests counted so far from `source`, as /metrics would report them (for checks). */
export async function siteRequestCount(metrics: Pick<AgentMetrics, 'registry'>, source: 'visitor' | 'screenshotter'): Promise<number> {
  const counter = metrics.registry.getSingleMetric('devplein_agent_site_requests_total');
  const values = counter ? (await counter.get()).values : [];
  return values.find((value) => value.labels.source === source)?.value ?? 0;
}
