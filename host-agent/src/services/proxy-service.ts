import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { ProxyServiceService, type ProxyServiceServer, type Route } from '@devplein/proto/proxy';
import { InvalidRouteError, isUnderSiteDomain, parseRoute } from '../drivers/proxy/caddy-route.ts';
import { type ProxyDriver, type ProxyRoute, ProxyUnavailableError } from '../drivers/proxy/proxy-driver.ts';
import { type FailureStatus, grpcReply } from './grpc-reply.ts';

export interface ProxyServiceOptions {
  proxy: ProxyDriver;
  logger: Logger;
  /** AGENT_SITE_DOMAIN: routes only for domains under it. */
  siteDomain: string;
  /**
   * The upstreams ("address:port") the agent's own managed containers publish their HTTP port
   * on right now (drivers/docker/managed-containers.ts upstreamOf); a route may only point at one of them.
   */
  ownUpstreams: () => Promise<ReadonlySet<string>>;
}

/** A route to an upstream that is none of the agent's containers (maps to PERMISSION_DENIED). */
export class RouteNotOwnedError extends Error {
  override name = 'RouteNotOwnedError';
}

/** A failure as the caller should see it: its own mistake or Caddy away (anything else is our fault). */
function proxyFailure(error: unknown): FailureStatus | undefined {
  if (error instanceof InvalidRouteError) return { code: grpc.status.INVALID_ARGUMENT, details: error.message };
  if (error instanceof RouteNotOwnedError) return { code: grpc.status.PERMISSION_DENIED, details: error.message };
  if (error instanceof ProxyUnavailableError) return { code: grpc.status.UNAVAILABLE, details: error.message };
  return undefined;
}

/**
 * ProxyService: the routes of the host's reverse proxy, for repairs and domain changes (the
 * container service and the route keeper keep routes in step on their own). The driver
 * validates the shape and talks to Caddy; this checks that a new route is one the agent would
 * make itself — a domain under its site domain, to a port one of its own project containers
 * publishes — so a caller cannot make the host's proxy an open relay to any address (another
 * host, the Docker API, a database) or take over a name that is not a student site.
 */
export class ProxyServiceImpl {
  constructor(private readonly options: ProxyServiceOptions) {}

  async upsertRoute(given: Route): Promise<{ route: ProxyRoute; created: boolean }> {
    const { siteDomain } = this.options;
    const route = parseRoute({ domain: given.domain, upstream: given.upstream, projectId: Number(given.projectId) });
    if (!isUnderSiteDomain(route.domain, siteDomain)) {
      throw new InvalidRouteError(`domain ${route.domain} is not under this dev server's site domain ${siteDomain}`);
    }
    if (!(await this.options.ownUpstreams()).has(route.upstream)) {
      throw new RouteNotOwnedError(`upstream ${route.upstream} is not the published HTTP port of one of this agent's project containers`);
    }
    const { created } = await this.options.proxy.upsertRoute(route);
    return { route, created };
  }

  addToServer(server: grpc.Server): void {
    const { proxy, logger } = this.options;
    const { reply } = grpcReply({ logger, knownFailures: proxyFailure, internalDetails: () => 'the proxy route could not be changed; see the agent log' });
    const handlers: ProxyServiceServer = {
      upsertRoute: (call, callback) =>
        reply(
          call,
          callback,
          () => this.upsertRoute(call.request.route ?? { domain: '', upstream: '', projectId: 0 }),
          'UpsertRoute',
        ),
      removeRoute: (call, callback) => reply(call, callback, async () => ({ removed: await proxy.removeRoute(call.request.domain) }), 'RemoveRoute'),
      listRoutes: (call, callback) => reply(call, callback, async () => ({ routes: await proxy.listRoutes() }), 'ListRoutes'),
    };
    server.addService(ProxyServiceService, handlers);
  }
}
