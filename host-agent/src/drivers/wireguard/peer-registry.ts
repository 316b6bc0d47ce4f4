/**
 * The peers of one WireGuard interface: allocation from the pool, the interface and the state on
 * disk kept in step. Every change goes through one queue, so two calls never pick the same
 * address; a change is either on the interface and on disk, or on neither.
 */
import type { Logger } from 'pino';
import {
  AddressError,
  type AddressPool,
  formatIpv4,
  type Ipv4,
  lowestFreeAddress,
  parseIpv4,
  parsePeerAddress,
  peerCidr,
  poolCidr,
  serverInterfaceAddress,
} from './addresses.ts';
import { generateWireGuardKeyPair, isWireGuardKey, publicKeyOf } from './keys.ts';
import { hasServerKey, loadOrCreatePrivateKey, loadPeers, savePeers, type StoredPeer, WireGuardStateError } from './state.ts';
import { type PeerRuntime, type WireGuardHost, WireGuardUnavailableError } from './wireguard-host.ts';

/** Why a peer call was refused; the service maps the kind to a gRPC status. */
export type PeerErrorKind = 'invalid' | 'exists' | 'exhausted' | 'unavailable';

export class PeerError extends Error {
  override name = 'PeerError';
  constructor(
    readonly kind: PeerErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export interface PeerRegistryOptions {
  host: WireGuardHost;
  dataDir: string;
  interfaceName: string;
  listenPort: number;
  pool: AddressPool;
  /** Networks peers may reach; `undefined` when the firewall is off. */
  firewallNetworks: readonly string[] | undefined;
  logger: Logger;
}

export interface CreatePeerInput {
  publicKey: string;
  /** Empty: the lowest free address. */
  address: string;
  identifier: string;
  userId: number;
}

/** A persisted peer with what the interface says about it. */
export interface PeerWithRuntime extends StoredPeer {
  latestHandshake: Date | undefined;
  receivedBytes: number;
  sentBytes: number;
}

interface ReadyState {
  publicKey: string;
  peers: StoredPeer[];
}

/** Checks a public key from a caller: base64 of exactly 32 bytes. */
export function checkPublicKey(publicKey: string): string {
  if (!isWireGuardKey(publicKey)) throw new PeerError('invalid', 'public_key must be a WireGuard key: base64 of exactly 32 bytes (44 characters)');
  return publicKey;
}

function checkPeerInput(input: CreatePeerInput): void {
  checkPublicKey(input.publicKey);
  if (input.identifier.length > 200 || [...input.identifier].some((char) => char.charCodeAt(0) < 0x20)) {
    throw new PeerError('invalid', 'identifier must be at most 200 characters without control characters');
  }
  if (!Number.isSafeInteger(input.userId) || input.userId < 1) throw new PeerError('invalid', 'user_id must be a positive number');
}

const addressOf = (peer: StoredPeer): Ipv4 | undefined => parseIpv4(peer.address.replace(/\/32$/, ''));

export class PeerRegistry {
  private queue: Promise<unknown> = Promise.resolve();
  private state: ReadyState | undefined;

  constructor(private readonly options: PeerRegistryOptions) {}

  /** Runs `work` after every earlier call has finished (also when one failed). */
  private serialize<T>(work: () => Promise<T>): Promise<T> {
    const result = this.queue.then(work, work);
    this.queue = result.catch(() => undefined);
    return result;
  }

  /**
   * The interface as the disk says: key made once, interface brought up, every persisted peer
   * on it, firewall set. Done on the first call (or start()); redone after a failure on the
   * interface (for instance someone deleted it), since every step is idempotent.
   */
  private async ready(): Promise<ReadyState> {
    if (this.state) return this.state;
    const { dataDir, interfaceName, pool, host, logger } = this.options;
    try {
      const privateKey = await loadOrCreatePrivateKey(dataDir, interfaceName, () => generateWireGuardKeyPair().privateKey);
      const peers = await loadPeers(dataDir, interfaceName);
      const outside = peers.find((peer) => {
        const address = addressOf(peer);
        return address === undefined || address < pool.firstPeer || address > pool.lastPeer;
      });
      if (outside) {
        throw new WireGuardStateError(`peer ${outside.publicKey} has address ${outside.address}, outside the pool ${poolCidr(pool)}; fix the peers file or the pool`);
      }
      await host.bringUp({ privateKey, listenPort: this.options.listenPort, address: serverInterfaceAddress(pool), peers });
      await host.applyFirewall(this.options.firewallNetworks);
      this.state = { publicKey: publicKeyOf(privateKey), peers };
      logger.info({ interface: interfaceName, peers: peers.length, firewall: this.options.firewallNetworks !== undefined }, 'WireGuard interface ready');
      return this.state;
    } catch (error) {
      if (error instanceof WireGuardUnavailableError || error instanceof WireGuardStateError) throw new PeerError('unavailable', error.message);
      throw error;
    }
  }

  /** A failure on the interface: the next call brings it up again (idempotent). */
  private interfaceFailed(error: unknown): PeerError {
    this.state = undefined;
    return new PeerError('unavailable', `WireGuard interface ${this.options.interfaceName}: ${(error as Error).message}`);
  }

  /**
   * At agent start: brings the interface up with every persisted peer when this host already
   * has VPN state (its key file), so peers work again after a reboot before any call. A host
   * whose VPN was never used (no key yet) is left alone until the first VPN call.
   * Returns whether it brought the interface up.
   */
  start(): Promise<boolean> {
    return this.serialize(async () => {
      if (!this.state && !(await hasServerKey(this.options.dataDir, this.options.interfaceName))) return false;
      await this.ready();
      return true;
    });
  }

  /** Brings the interface up now, whether or not there is state yet. */
  bringUp(): Promise<void> {
    return this.serialize(async () => {
      await this.ready();
    });
  }

  async create(input: CreatePeerInput): Promise<{ peer: StoredPeer; created: boolean }> {
    checkPeerInput(input);
    const { pool } = this.options;
    let requested: Ipv4 | undefined;
    if (input.address.trim() !== '') {
      try {
        requested = parsePeerAddress(input.address, pool);
      } catch (error) {
        if (error instanceof AddressError) throw new PeerError('invalid', error.message);
        throw error;
      }
    }
    return this.serialize(async () => {
      const state = await this.ready();
      const existing = state.peers.find((peer) => peer.publicKey === input.publicKey);
      if (existing) return { peer: existing, created: false };
      const taken = new Set(state.peers.map(addressOf).filter((address): address is Ipv4 => address !== undefined));
      let address: Ipv4;
      if (requested !== undefined) {
        if (taken.has(requested)) throw new PeerError('exists', `address ${formatIpv4(requested)} belongs to another peer`);
        address = requested;
      } else {
        const free = lowestFreeAddress(pool, taken);
        if (free === undefined) throw new PeerError('exhausted', `the address pool ${poolCidr(pool)} is full`);
        address = free;
      }
      const peer: StoredPeer = { publicKey: input.publicKey, address: peerCidr(address), identifier: input.identifier, userId: input.userId };
      try {
        await this.options.host.setPeer(peer.publicKey, peer.address);
      } catch (error) {
        throw this.interfaceFailed(error);
      }
      const peers = [...state.peers, peer];
      try {
        await savePeers(this.options.dataDir, this.options.interfaceName, peers);
      } catch (error) {
        await this.options.host.removePeer(peer.publicKey).catch((rollback: unknown) => {
          this.options.logger.error({ err: rollback, publicKey: peer.publicKey }, 'could not take back a peer that was not saved');
          this.state = undefined;
        });
        throw error;
      }
      state.peers = peers;
      return { peer, created: true };
    });
  }

  /** Removes a peer from the interface and the disk; false when there was none. */
  async remove(publicKeyInput: string): Promise<boolean> {
    const publicKey = checkPublicKey(publicKeyInput);
    return this.serialize(async () => {
      const state = await this.ready();
      const peer = state.peers.find((candidate) => candidate.publicKey === publicKey);
      if (!peer) return false;
      try {
        await this.options.host.removePeer(publicKey);
      } catch (error) {
        throw this.interfaceFailed(error);
      }
      const peers = state.peers.filter((candidate) => candidate !== peer);
      try {
        await savePeers(this.options.dataDir, this.options.interfaceName, peers);
      } catch (error) {
        await this.options.host.setPeer(peer.publicKey, peer.address).catch((rollback: unknown) => {
          this.options.logger.error({ err: rollback, publicKey }, 'could not put back a peer whose removal was not saved');
          this.state = undefined;
        });
        throw error;
      }
      state.peers = peers;
      return true;
    });
  }

  /** The persisted peers with handshake and traffic from the interface. */
  async list(): Promise<PeerWithRuntime[]> {
    return this.serialize(async () => {
      const state = await this.ready();
      let runtime: PeerRuntime[];
      try {
        runtime = await this.options.host.peerRuntime();
      } catch (error) {
        throw this.interfaceFailed(error);
      }
      const byKey = new Map(runtime.map((entry) => [entry.publicKey, entry]));
      return state.peers.map((peer) => {
        const live = byKey.get(peer.publicKey);
        return { ...peer, latestHandshake: live?.latestHandshake, receivedBytes: live?.receivedBytes ?? 0, sentBytes: live?.sentBytes ?? 0 };
      });
    });
  }

  /** The server's public key (bringing the interface up first: the key is made there). */
  async serverPublicKey(): Promise<string> {
    return this.serialize(async () => (await this.ready()).publicKey);
  }
}
