import type { ListRoutesResponse, ProxyServiceClient, RemoveRouteResponse, UpsertRouteResponse } from '@devplein/proto/proxy';
import { routeView, type RouteView } from '../container-views.ts';
import type { UnaryCall } from '../grpc-unary.ts';
import type { AgentCallOptions } from '../call-options.ts';

/** ProxyService: repairs and reconciling of the reverse proxy routes. */
export interface ProxyApi {
  upsertRoute(route: RouteView, options?: AgentCallOptions): Promise<{ route: RouteView; created: boolean }>;
  removeRoute(domain: string, options?: AgentCallOptions): Promise<{ removed: boolean }>;
  listRoutes(options?: AgentCallOptions): Promise<RouteView[]>;
}

/** ProxyService over the link: the reverse proxy's routes. */
export function createProxyClient(client: ProxyServiceClient, unary: UnaryCall): ProxyApi {
  return {
    async upsertRoute(route, callOptions) {
      const response = await unary<UpsertRouteResponse>('UpsertRoute', (md, opts, cb) => client.upsertRoute({ route: { ...route } }, md, opts, cb), callOptions);
      return { route: routeView(response.route), created: response.created };
    },
    async removeRoute(domain, callOptions) {
      const response = await unary<RemoveRouteResponse>('RemoveRoute', (md, opts, cb) => client.removeRoute({ domain }, md, opts, cb), callOptions);
      return { removed: response.removed };
    },
    async listRoutes(callOptions) {
      const response = await unary<ListRoutesResponse>('ListRoutes', (md, opts, cb) => client.listRoutes({}, md, opts, cb), callOptions);
      return response.routes.map((route) => routeView(route));
    },
  };
}
