import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { ProxyServiceService, type ProxyServiceServer, type Route } from '@devplein/proto/proxy';
import { InvalidRouteError, parseRoute } from '../drivers/proxy/caddy-route.ts';
import { type ProxyDriver, ProxyUnavailableError } from '../drivers/proxy/proxy-driver.ts';
import { callLogger } from '../interceptors/logging.ts';

export interface ProxyServiceOptions {
  proxy: ProxyDriver;
  logger: Logger;
}

/** A failure as the caller should see it: its own mistake, Caddy away, or our fault. */
function toStatus(error: unknown): { code: grpc.status; details: string } {
  if (error instanceof InvalidRouteError) return { code: grpc.status.INVALID_ARGUMENT, details: error.message };
  if (error instanceof ProxyUnavailableError) return { code: grpc.status.UNAVAILABLE, details: error.message };
  return { code: grpc.status.INTERNAL, details: 'the proxy route could not be changed; see the agent log' };
}

/**
 * ProxyService: the routes of the host's reverse proxy, for repairs and domain changes (the
 * container service and the route keeper keep routes in step on their own). Thin: the driver
 * validates and talks to Caddy; this maps its errors to gRPC codes.
 */
export class ProxyServiceImpl {
  constructor(private readonly options: ProxyServiceOptions) {}

  addToServer(server: grpc.Server): void {
    const { proxy, logger } = this.options;
    const reply = <T>(call: { metadata: grpc.Metadata }, callback: grpc.sendUnaryData<T>, work: () => Promise<T>, what: string): void => {
      work().then(
        (response) => callback(null, response),
        (error: unknown) => {
          const status = toStatus(error);
          if (status.code === grpc.status.INTERNAL) callLogger(logger, call).error({ err: error }, `${what} failed`);
          callback(status);
        },
      );
    };
    const handlers: ProxyServiceServer = {
      upsertRoute: (call, callback) =>
        reply(
          call,
          callback,
          async () => {
            const given: Route = call.request.route ?? { domain: '', upstream: '', projectId: 0 };
            const route = parseRoute({ domain: given.domain, upstream: given.upstream, projectId: Number(given.projectId) });
            const { created } = await proxy.upsertRoute(route);
            return { route, created };
          },
          'UpsertRoute',
        ),
      removeRoute: (call, callback) => reply(call, callback, async () => ({ removed: await proxy.removeRoute(call.request.domain) }), 'RemoveRoute'),
      listRoutes: (call, callback) => reply(call, callback, async () => ({ routes: await proxy.listRoutes() }), 'ListRoutes'),
    };
    server.addService(ProxyServiceService, handlers);
  }
}
