import type { CreatePeerResponse, GetServerInfoResponse, ListPeersResponse, RemovePeerResponse, VpnServiceClient } from '@devplein/proto/vpn';
import type { AgentDeadlines, UnaryCall } from '../grpc-unary.ts';
import { peerView, vpnServerView, type PeerView, type VpnServerView, type CreatePeerInput } from '../vpn-views.ts';
import type { AgentCallOptions } from '../call-options.ts';

/**
 * VpnService: WireGuard peers of the dev server's interface. Rejects with AgentError:
 * INVALID_ARGUMENT, ALREADY_EXISTS (address taken), RESOURCE_EXHAUSTED (pool full), UNAVAILABLE.
 */
export interface VpnApi {
  createPeer(input: CreatePeerInput, options?: AgentCallOptions): Promise<{ peer: PeerView | null; created: boolean }>;
  removePeer(publicKey: string, options?: AgentCallOptions): Promise<{ removed: boolean }>;
  listPeers(options?: AgentCallOptions): Promise<PeerView[]>;
  getServerInfo(options?: AgentCallOptions): Promise<VpnServerView>;
}

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
