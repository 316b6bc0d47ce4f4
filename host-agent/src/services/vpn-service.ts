import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { type GetServerInfoResponse, type Peer, VpnServiceService, type VpnServiceServer } from '@devplein/proto/vpn';
import type { AgentConfig } from '../config.ts';
import { formatIpv4, parsePool, poolCidr } from '../drivers/wireguard/addresses.ts';
import { type CreatePeerInput, PeerError, type PeerErrorKind, PeerRegistry, type PeerWithRuntime } from '../drivers/wireguard/peer-registry.ts';
import type { StoredPeer } from '../drivers/wireguard/state.ts';
import { CommandWireGuardHost, type WireGuardHost } from '../drivers/wireguard/wireguard-host.ts';
import { type FailureStatus, grpcReply } from './grpc-reply.ts';

const statusOf: Record<PeerErrorKind, grpc.status> = {
  invalid: grpc.status.INVALID_ARGUMENT,
  exists: grpc.status.ALREADY_EXISTS,
  exhausted: grpc.status.RESOURCE_EXHAUSTED,
  unavailable: grpc.status.UNAVAILABLE,
};

function peerFailure(error: unknown): FailureStatus | undefined {
  return error instanceof PeerError ? { code: statusOf[error.kind], details: error.message } : undefined;
}

export interface VpnServiceOptions {
  config: Pick<AgentConfig, 'vpn' | 'wgBinary' | 'dataDir'>;
  logger: Logger;
  /** The interface's side effects; default the real tools (wireguard-go, wg, ip, iptables). */
  host?: WireGuardHost;
}

/** "host:port" clients dial: the configured endpoint (its port added when it has none), else localhost. */
function clientEndpoint(vpn: AgentConfig['vpn']): string {
  if (!vpn.endpoint) return `localhost:${vpn.listenPort}`;
  return /:\d{1,5}$/.test(vpn.endpoint) ? vpn.endpoint : `${vpn.endpoint}:${vpn.listenPort}`;
}

function toPeer(peer: StoredPeer | PeerWithRuntime): Peer {
  const runtime = 'sentBytes' in peer ? peer : undefined;
  return {
    publicKey: peer.publicKey,
    address: peer.address,
    identifier: peer.identifier,
    userId: peer.userId,
    latestHandshake: runtime?.latestHandshake,
    receivedBytes: runtime?.receivedBytes ?? 0,
    sentBytes: runtime?.sentBytes ?? 0,
  };
}

/**
 * VpnService: the students' WireGuard peers on this host's interface (wireguard-go here, since
 * the kernel has no module). The server takes the pool's first host address; peers get single
 * addresses; with the iptables firewall on, peers reach only the allowed networks however they
 * widen their own AllowedIPs. The state lives in `{dataDir}/wireguard/`, so a restarted agent
 * restores every peer (at start(), or on the first call).
 */
export class VpnServiceImpl {
  private readonly registry: PeerRegistry;
  private readonly serverInfo: Omit<GetServerInfoResponse, 'publicKey'>;

  constructor(private readonly options: VpnServiceOptions) {
    const { vpn } = options.config;
    const pool = parsePool(vpn.addressPool);
    const allowedNetworks = vpn.allowedNetworks.length > 0 ? [...vpn.allowedNetworks] : [`${formatIpv4(pool.server)}/32`];
    this.serverInfo = {
      endpoint: clientEndpoint(vpn),
      allowedNetworks,
      addressPool: poolCidr(pool),
      dnsServers: [...vpn.dnsServers],
      interfaceName: vpn.interfaceName,
    };
    const host =
      options.host ??
      new CommandWireGuardHost({
        interfaceName: vpn.interfaceName,
        wgBinary: options.config.wgBinary,
        wireguardGoBinary: vpn.wireguardGoBinary,
        iptablesBinary: vpn.iptablesBinary,
        firewallAllow: vpn.firewallAllow,
      });
    this.registry = new PeerRegistry({
      host,
      dataDir: options.config.dataDir,
      interfaceName: vpn.interfaceName,
      listenPort: vpn.listenPort,
      pool,
      firewallNetworks: vpn.firewall === 'iptables' ? allowedNetworks : undefined,
      logger: options.logger,
    });
  }

  /**
   * At agent start: when this host's VPN has been used (its key is in the data dir), brings the
   * interface up with every persisted peer, so tunnels work again after a reboot before any
   * call; a host that never used the VPN (every test agent with a fresh data dir) is left alone
   * until the first VPN call. Never throws: when WireGuard is not available the agent still
   * serves everything else, VPN calls answer UNAVAILABLE with the reason, and each call retries.
   */
  async start(): Promise<void> {
    try {
      await this.registry.start();
    } catch (error) {
      this.options.logger.warn({ err: error }, 'the WireGuard interface is not up; VPN calls will answer UNAVAILABLE until it can be brought up');
    }
  }

  async createPeer(input: CreatePeerInput): Promise<{ peer: Peer; created: boolean }> {
    const { peer, created } = await this.registry.create(input);
    return { peer: toPeer(peer), created };
  }

  async removePeer(publicKey: string): Promise<boolean> {
    return this.registry.remove(publicKey);
  }

  async listPeers(): Promise<Peer[]> {
    return (await this.registry.list()).map(toPeer);
  }

  async getServerInfo(): Promise<GetServerInfoResponse> {
    return { publicKey: await this.registry.serverPublicKey(), ...this.serverInfo, allowedNetworks: [...this.serverInfo.allowedNetworks] };
  }

  addToServer(server: grpc.Server): void {
    const { logger } = this.options;
    const { reply } = grpcReply({ logger, knownFailures: peerFailure });
    const handlers: VpnServiceServer = {
      createPeer: (call, callback) =>
        reply(
          call,
          callback,
          () =>
            this.createPeer({
              publicKey: call.request.publicKey,
              address: call.request.address,
              identifier: call.request.identifier,
              userId: Number(call.request.userId),
            }),
          'CreatePeer',
        ),
      removePeer: (call, callback) => reply(call, callback, async () => ({ removed: await this.removePeer(call.request.publicKey) }), 'RemovePeer'),
      listPeers: (call, callback) => reply(call, callback, async () => ({ peers: await this.listPeers() }), 'ListPeers'),
      getServerInfo: (call, callback) => reply(call, callback, () => this.getServerInfo(), 'GetServerInfo'),
    };
    server.addService(VpnServiceService, handlers);
  }
}
