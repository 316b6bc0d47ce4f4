import type { GetServerInfoResponse, Peer } from '@devplein/proto/vpn';

/**
 * Plain views of what the agent answers about WireGuard peers. Routes, commands and presenters
 * only ever see these: no proto message leaves the agent module.
 */

/** One peer of the server interface. */
export interface PeerView {
  /** WireGuard public key, base64 of 32 bytes. */
  publicKey: string;
  /** Tunnel address in CIDR form, e.g. `10.8.0.12/32`. */
  address: string;
  /** The control plane's VPN configuration identifier (UUID). */
  identifier: string;
  userId: number;
  /** ISO time of the last handshake; null when never. */
  latestHandshake: string | null;
  receivedBytes: number;
  sentBytes: number;
}

/** What CreatePeer asks for: only ever a public key (the private one stays in the control plane). */
export interface CreatePeerInput {
  publicKey: string;
  identifier: string;
  userId: number;
  /** Requested address; omitted: the agent takes the lowest free one. */
  address?: string;
}

/** What a client configuration needs from the server side. */
export interface VpnServerView {
  publicKey: string;
  /** `host:port` clients dial. */
  endpoint: string;
  /** The client's AllowedIPs: only these networks go through the tunnel. */
  allowedNetworks: string[];
  addressPool: string;
  dnsServers: string[];
  interfaceName: string;
}

export function peerView(peer: Peer): PeerView {
  return {
    publicKey: peer.publicKey,
    address: peer.address,
    identifier: peer.identifier,
    userId: peer.userId,
    latestHandshake: peer.latestHandshake ? peer.latestHandshake.toISOString() : null,
    receivedBytes: peer.receivedBytes,
    sentBytes: peer.sentBytes,
  };
}

export function vpnServerView(response: GetServerInfoResponse): VpnServerView {
  return {
    publicKey: response.publicKey,
    endpoint: response.endpoint,
    allowedNetworks: [...response.allowedNetworks],
    addressPool: response.addressPool,
    dnsServers: [...response.dnsServers],
    interfaceName: response.interfaceName,
  };
}
