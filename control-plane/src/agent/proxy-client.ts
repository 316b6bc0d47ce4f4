import type { ListRoutesResponse, ProxyServiceClient, RemoveRouteResponse, UpsertRouteResponse } from '@devplein/proto/proxy';
import { routeView } from './container-views.ts';
import type { UnaryCall } from './grpc-unary.ts';
import type { ProxyApi } from './host-apis.ts';

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
