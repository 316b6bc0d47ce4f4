import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Middleware } from 'koa';
import type { AgentCallMetrics } from '../agent/agent-client.ts';

/**
 * The control plane's Prometheus metrics. One registry per process (main.ts makes it); it is
 * served only by the separate metrics listener (metrics-server.ts), never on the app port.
 * Labels have a small, fixed set of values: routes are koa-router templates, never raw paths.
 */
export interface ControlPlaneMetrics extends AgentCallMetrics {
  registry: Registry;
  /** Koa middleware counting and timing every request by method, route template and status. */
  httpMiddleware(): Middleware;
  /** One thumbnail capture on `host` ended with this outcome (captured, timeout, agent_unreachable, ...). */
  countThumbnailCapture(host: string, outcome: string): void;
  /**
   * `host`'s containers by state from a scrape-time list; null (its agent did not answer) keeps
   * the previous values and sets devplein_agent_up{host} to 0.
   */
  setContainerStates(host: string, states: ReadonlyMap<string, number> | null): void;
}

/** Route label of a request no router matched (the SPA, static files, 404s). */
export const UNMATCHED_ROUTE = '(unmatched)';

/** The koa-router template the request matched (`/api/user/dockers/:id`), else UNMATCHED_ROUTE. */
export function routeTemplate(ctx: { _matchedRoute?: unknown }): string {
  const matched = ctx._matchedRoute;
  if (typeof matched === 'string' && matched.length > 0) return matched;
  return UNMATCHED_ROUTE;
}

/** Only the standard methods become label values (anything else is 'OTHER'). */
const knownMethods: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Builds a registry with default process metrics and the devplein metrics. */
export function createControlPlaneMetrics(): ControlPlaneMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const httpRequests = new Counter({
    name: 'devplein_http_requests_total',
    help: 'HTTP requests answered by the control plane, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'devplein_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method and route template.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const agentCalls = new Counter({
    name: 'devplein_agent_calls_total',
    help: 'Unary calls to the host agent, by RPC method and outcome (ok or the error code).',
    labelNames: ['host', 'method', 'outcome'] as const,
    registers: [registry],
  });
  const agentCallDuration = new Histogram({
    name: 'devplein_agent_call_duration_seconds',
    help: 'Duration of unary calls to the host agent, by RPC method.',
    labelNames: ['host', 'method'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15, 30, 60, 120],
    registers: [registry],
  });
  const agentStreamsOpen = new Gauge({
    name: 'devplein_agent_streams_open',
    help: 'Server-streaming calls to the host agent open now (event watch, log follow, image pull), by RPC method.',
    labelNames: ['host', 'method'] as const,
    registers: [registry],
  });
  const agentStreams = new Counter({
    name: 'devplein_agent_streams_total',
    help: 'Server-streaming calls to the host agent that ended, by RPC method and outcome (ok, cancelled or the error code).',
    labelNames: ['host', 'method', 'outcome'] as const,
    registers: [registry],
  });
  const agentStreamMessages = new Counter({
    name: 'devplein_agent_stream_messages_total',
    help: 'Messages received on server-streaming calls to the host agent, by RPC method.',
    labelNames: ['host', 'method'] as const,
    registers: [registry],
  });
  const thumbnailCaptures = new Counter({
    name: 'devplein_thumbnail_captures_total',
    help: 'Site thumbnail captures by outcome (captured, or the reason it failed).',
    labelNames: ['host', 'outcome'] as const,
    registers: [registry],
  });
  const containers = new Gauge({
    name: 'devplein_containers',
    help: 'Containers per dev server by Docker state, as listed by the agent at the last successful scrape.',
    labelNames: ['host', 'state'] as const,
    registers: [registry],
  });
  const agentUp = new Gauge({
    name: 'devplein_agent_up',
    help: '1 when the dev server\'s agent answered the container list of the last scrape, else 0.',
    labelNames: ['host'] as const,
    registers: [registry],
  });

  const statesSeen = new Map<string, Set<string>>();

  return {
    registry,
    httpMiddleware() {
      return async (ctx, next) => {
        const startedAt = performance.now();
        let status: number | undefined;
        try {
          await next();
          status = ctx.status;
        } catch (error) {
          const given = (error as { status?: unknown; statusCode?: unknown }).status ?? (error as { statusCode?: unknown }).statusCode;
          status = typeof given === 'number' && given >= 400 && given < 600 ? given : 500;
          throw error;
        } finally {
          const method = knownMethods.has(ctx.method) ? ctx.method : 'OTHER';
          const route = routeTemplate(ctx as { _matchedRoute?: unknown });
          httpRequests.inc({ method, route, status: String(status ?? 500) });
          httpDuration.observe({ method, route }, (performance.now() - startedAt) / 1000);
        }
      };
    },
    observeAgentCall(host, method, outcome, seconds) {
      agentCalls.inc({ host, method, outcome });
      agentCallDuration.observe({ host, method }, seconds);
    },
    streamOpened(host, method) {
      agentStreamsOpen.inc({ host, method });
    },
    streamMessage(host, method) {
      agentStreamMessages.inc({ host, method });
    },
    streamEnded(host, method, outcome) {
      agentStreamsOpen.dec({ host, method });
      agentStreams.inc({ host, method, outcome });
    },
    countThumbnailCapture(host, outcome) {
      thumbnailCaptures.inc({ host, outcome });
    },
    setContainerStates(host, states) {
      agentUp.set({ host }, states ? 1 : 0);
      if (!states) return;
      // Only this host's series are replaced: a state no container has any more goes away.
      for (const state of statesSeen.get(host) ?? []) containers.remove({ host, state });
      statesSeen.set(host, new Set(states.keys()));
      for (const [state, count] of states) containers.set({ host, state }, count);
    },
  };
}

/** Counts the outcome of a capture (a rejection counts as 'error') and passes the result on. */
export function countCaptureOutcome<Result extends { outcome: string }>(host: string, work: Promise<Result>, metrics: Pick<ControlPlaneMetrics, 'countThumbnailCapture'>): Promise<Result> {
  return work.then(
    (result) => {
      metrics.countThumbnailCapture(host, result.outcome);
      return result;
    },
    (error: unknown) => {
      metrics.countThumbnailCapture(host, 'error');
      throw error;
    },
  );
}
