import type * as grpc from '@grpc/grpc-js';
import { VpnServiceService, type VpnServiceServer } from '@devplein/proto/vpn';
import { unimplementedUnary } from './unimplemented.ts';

const capability = 'VPN peers (WireGuard)';
const pending = (method: keyof typeof VpnServiceService) => ({ path: VpnServiceService[method].path, capability });

/** VpnService: WireGuard peers of the dev server. Every RPC answers UNIMPLEMENTED for now. */
export class VpnServiceImpl {
  addToServer(server: grpc.Server): void {
    const handlers: VpnServiceServer = {
      createPeer: unimplementedUnary(pending('createPeer')),
      removePeer: unimplementedUnary(pending('removePeer')),
      listPeers: unimplementedUnary(pending('listPeers')),
      getServerInfo: unimplementedUnary(pending('getServerInfo')),
    };
    server.addService(VpnServiceService, handlers);
  }
}
