import type { CreatePeerResponse, GetServerInfoResponse, ListPeersResponse, RemovePeerResponse, VpnServiceClient } from '@devplein/proto/vpn';
import type { AgentDeadlines, UnaryCall } from './grpc-unary.ts';
import type { VpnApi } from './host-apis.ts';
import { peerView, vpnServerView } from './vpn-views.ts';

/** VpnService over the link: WireGuard peers and the server's side of a client configuration. */
export function createVpnClient(client: VpnServiceClient, unary: UnaryCall, deadlines: AgentDeadlines): VpnApi {
  return {
    async createPeer(input, callOptions) {
      const request = { publicKey: input.publicKey, address: input.address ?? '', identifier: input.identifier, userId: input.userId };
      const response = await unary<CreatePeerResponse>(
        'CreatePeer',
        (md, opts, cb) => client.createPeer(request, md, opts, cb),
        { deadlineMs: deadlines.hostChange, ...callOptions },
      );
      return { peer: response.peer ? peerView(response.peer) : null, created: response.created };
    },
    async removePeer(publicKey, callOptions) {
      const response = await unary<RemovePeerResponse>(
        'RemovePeer',
        (md, opts, cb) => client.removePeer({ publicKey }, md, opts, cb),
        { deadlineMs: deadlines.hostChange, ...callOptions },
      );
      return { removed: response.removed };
    },
    async listPeers(callOptions) {
      const response = await unary<ListPeersResponse>('ListPeers', (md, opts, cb) => client.listPeers({}, md, opts, cb), callOptions);
      return response.peers.map(peerView);
    },
    async getServerInfo(callOptions) {
      const response = await unary<GetServerInfoResponse>('GetServerInfo', (md, opts, cb) => client.getServerInfo({}, md, opts, cb), callOptions);
      return vpnServerView(response);
    },
  };
}
