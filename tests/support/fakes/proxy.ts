/** The fake ProxyService: routes in the agent's `routes` map, by domain. */
import type { ProxyServiceServer } from '@devplein/proto/proxy';
import type { FakeRpc } from './rpc.ts';
import type { FakeAgentState } from './state.ts';

export interface ProxyServiceContext {
  state: Pick<FakeAgentState, 'routes'>;
  rpc: FakeRpc;
}

export function proxyService({ state, rpc }: ProxyServiceContext): ProxyServiceServer {
  return {
    upsertRoute: rpc.unary('upsertRoute', (request) => {
      const route = request.route ?? { domain: '', upstream: '', projectId: 0 };
      const created = !state.routes.has(route.domain);
      state.routes.set(route.domain, route);
      return { route, created };
    }),
    removeRoute: rpc.unary('removeRoute', (request) => ({ removed: state.routes.delete(request.domain) })),
    listRoutes: rpc.unary('listRoutes', () => ({ routes: [...state.routes.values()] })),
  };
}
