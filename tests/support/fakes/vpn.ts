/**
 * The fake VpnService: WireGuard peers in the agent's `peers` map, their addresses from a pool of
 * `vpnPoolSize` (lowest free first), and the server info a test may change in `vpnServer`.
 */
import { generateKeyPairSync } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import type { Peer, VpnServiceServer } from '@devplein/proto/vpn';
import { type FakeRpc, serviceError } from './rpc.ts';
import type { FakeAgentState } from './state.ts';

export interface VpnServiceContext {
  state: Pick<FakeAgentState, 'peers' | 'vpnPoolSize' | 'vpnServer'>;
  rpc: FakeRpc;
}

/** A WireGuard key: base64 of 32 bytes. */
const WIREGUARD_KEY = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;

/** A WireGuard public key (base64 of the raw 32 bytes), as the server's own key. */
export function wireguardPublicKey(): string {
  const { publicKey } = generateKeyPairSync('x25519');
  return Buffer.from(publicKey.export({ format: 'jwk' }).x ?? '', 'base64url').toString('base64');
}

/** The lowest free pool address, or null when the pool is full. */
function freeAddress(state: VpnServiceContext['state']): string | null {
  const taken = new Set([...state.peers.values()].map((peer) => peer.address));
  for (let host = 2; host < 2 + state.vpnPoolSize; host++) {
    const address = `10.8.0.${host}/32`;
    if (!taken.has(address)) return address;
  }
  return null;
}

export function vpnService({ state, rpc }: VpnServiceContext): VpnServiceServer {
  return {
    createPeer: rpc.unary('createPeer', (request) => {
      if (!WIREGUARD_KEY.test(request.publicKey)) return serviceError(grpc.status.INVALID_ARGUMENT, 'bad public key');
      const existing = state.peers.get(request.publicKey);
      if (existing) return { peer: existing, created: false };
      let address = request.address;
      if (address && [...state.peers.values()].some((peer) => peer.address === address)) {
        return serviceError(grpc.status.ALREADY_EXISTS, `address ${address} belongs to another peer`);
      }
      address ||= freeAddress(state) ?? '';
      if (!address) return serviceError(grpc.status.RESOURCE_EXHAUSTED, 'address pool exhausted');
      const peer: Peer = {
        publicKey: request.publicKey,
        address,
        identifier: request.identifier,
        userId: Number(request.userId),
        latestHandshake: undefined,
        receivedBytes: 0,
        sentBytes: 0,
      };
      state.peers.set(peer.publicKey, peer);
      return { peer, created: true };
    }),
    removePeer: rpc.unary('removePeer', (request) => ({ removed: state.peers.delete(request.publicKey) })),
    listPeers: rpc.unary('listPeers', () => ({ peers: [...state.peers.values()] })),
    getServerInfo: rpc.unary('getServerInfo', () => ({ ...state.vpnServer, allowedNetworks: [...state.vpnServer.allowedNetworks], dnsServers: [...state.vpnServer.dnsServers] })),
  };
}
