import type * as grpc from '@grpc/grpc-js';
import { ProxyServiceService, type ProxyServiceServer } from '@devplein/proto/proxy';
import { unimplementedUnary } from './unimplemented.ts';

const capability = 'proxy routes (Caddy admin API)';
const pending = (method: keyof typeof ProxyServiceService) => ({ path: ProxyServiceService[method].path, capability });

/** ProxyService: reverse proxy routes per project domain. Every RPC answers UNIMPLEMENTED for now. */
export class ProxyServiceImpl {
  addToServer(server: grpc.Server): void {
    const handlers: ProxyServiceServer = {
      upsertRoute: unimplementedUnary(pending('upsertRoute')),
      removeRoute: unimplementedUnary(pending('removeRoute')),
      listRoutes: unimplementedUnary(pending('listRoutes')),
    };
    server.addService(ProxyServiceService, handlers);
  }
}
