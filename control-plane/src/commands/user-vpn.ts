import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import QRCode from 'qrcode';
import type { AgentFleet } from '../agent/agent-fleet.ts';
import { AgentError } from '../agent/agent-error.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import { HttpError, serviceUnavailable } from '../errors.ts';
import { presentVpnConfig, type VpnConfigJson } from '../presenters/present-vpn-config.ts';
import { KeyedLock } from './keyed-lock.ts';
import { generateWireguardKeyPair } from './wireguard-keys.ts';
import { vpnConfigFile, VpnConfigFileError } from './vpn-config-file.ts';
import { userHomeHost } from '../queries/users.ts';
import { createPeerOnFreeAddress } from './vpn-peer-address.ts';

export interface VpnCommandDeps {
  knex: Knex;
  agents: Pick<AgentFleet, 'link' | 'forNewUsers'>;
  secrets: SecretBox;
  logger: Logger;
}

/** Agent or WireGuard not answering (brief: 503 with a Dutch message, nothing stored). */
export const VPN_SERVER_UNREACHABLE_MESSAGE = 'De VPN-server is op dit moment niet bereikbaar. Probeer het zo opnieuw.';
const POOL_FULL = 'Er zijn geen VPN-adressen meer vrij. Meld dit bij een docent.';
const MISCONFIGURED = 'De VPN-server is niet goed ingesteld, dus er kan geen configuratie gemaakt worden. Meld dit bij een docent.';
const KEY_NOT_KEPT = 'Van deze VPN-configuratie is de sleutel niet bewaard; het bestand kan niet opnieuw gedownload worden.';

/** A stored configuration as the routes load it (then authorize it with ownsVpnConfig). */
export interface StoredVpnConfig {
  id: number;
  user_id: number;
  identifier: string;
  address: string;
  public_key: string;
  private_key_encrypted: string | null;
  created_at: Date | string;
  /** Its dev server; null is the first one. */
  host: string | null;
}

const COLUMNS = ['id', 'user_id', 'identifier', 'address', 'public_key', 'private_key_encrypted', 'created_at', 'host'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** One POST /api/vpn at a time per user: a double click must not make a second peer. */
const perUser = new KeyedLock<number>();

export async function loadVpnConfigOfUser(knex: Knex, userId: number): Promise<StoredVpnConfig | undefined> {
  return knex('vpn_configs').where({ user_id: userId }).first<StoredVpnConfig | undefined>(COLUMNS);
}

/** By the download path's identifier; a malformed one is simply not found. */
export async function loadVpnConfigByIdentifier(knex: Knex, identifier: string): Promise<StoredVpnConfig | undefined> {
  if (!UUID.test(identifier)) return undefined;
  return knex('vpn_configs').where({ identifier: identifier.toLowerCase() }).first<StoredVpnConfig | undefined>(COLUMNS);
}

/** GET /api/vpn: the user's configuration, or null. */
export async function getUserVpn(knex: Knex, userId: number): Promise<VpnConfigJson | null> {
  const row = await loadVpnConfigOfUser(knex, userId);
  return row ? presentVpnConfig(row) : null;
}

/** An agent failure as the HTTP answer of the VPN routes; non-agent errors pass through. */
function vpnAgentFailure(error: unknown): unknown {
  if (!(error instanceof AgentError)) return error;
  if (error.unreachable) return serviceUnavailable(VPN_SERVER_UNREACHABLE_MESSAGE);
  switch (error.code) {
    case 'RESOURCE_EXHAUSTED':
      return serviceUnavailable(POOL_FULL);
    case 'UNIMPLEMENTED':
      return new HttpError(501, 'De VPN wordt door de ontwikkelserver nog niet ondersteund.');
    default:
      return error;
  }
}

const isUniqueViolation = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';

/**
 * POST /api/vpn: the user's configuration, made when there is none, on the dev server of the
 * student's databases (userHomeHost), so it reaches them. The control plane makes the
 * client key pair, the agent gets only the public key and hands out the address; the private key
 * is stored sealed, so the file can be downloaded again. A failed agent call stores nothing; if
 * storing fails afterwards the peer is removed again (and an existing configuration, made
 * meanwhile by another process, is returned instead of a second one).
 */
export async function createUserVpn(deps: VpnCommandDeps, userId: number, requestId?: string): Promise<{ identifier: string }> {
  return perUser.run(userId, async () => {
    const existing = await loadVpnConfigOfUser(deps.knex, userId);
    if (existing) return { identifier: existing.identifier };
    const keys = generateWireguardKeyPair();
    const identifier = randomUUID();
    const link = await userHomeHost(deps.knex, deps.agents, userId);
    let peer;
    try {
      const answer = await createPeerOnFreeAddress(deps, link, { publicKey: keys.publicKey, identifier, userId }, requestId);
      peer = answer.peer;
    } catch (error) {
      throw vpnAgentFailure(error);
    }
    if (!peer?.address) throw new Error('the agent created a peer without an address');
    try {
      await deps.knex('vpn_configs').insert({
        user_id: userId,
        identifier,
        address: peer.address,
        public_key: keys.publicKey,
        private_key_encrypted: deps.secrets.seal(keys.privateKey),
        host: link.name,
      });
    } catch (error) {
      await link.client.vpn.removePeer(keys.publicKey, { requestId }).catch((removeError: unknown) => {
        deps.logger.error({ err: removeError, userId, address: peer.address }, 'removing the unstored peer failed: remove it by hand');
      });
      const meanwhile = isUniqueViolation(error) ? await loadVpnConfigOfUser(deps.knex, userId) : undefined;
      if (meanwhile) return { identifier: meanwhile.identifier };
      deps.logger.error({ err: error, userId, address: peer.address }, 'storing a new VPN configuration failed');
      throw error;
    }
    deps.logger.info({ userId, identifier, address: peer.address, host: link.name }, 'vpn configuration created');
    return { identifier };
  });
}

/**
 * GET /api/vpn/{identifier} (after the route authorized the row): the client's `.conf`, with the
 * server's key, endpoint and allowed networks as its dev server's agent reports them now.
 */
export async function vpnConfigText(deps: VpnCommandDeps, config: StoredVpnConfig, requestId?: string): Promise<string> {
  if (config.private_key_encrypted === null) throw new HttpError(410, KEY_NOT_KEPT);
  let server;
  try {
    server = await deps.agents.link(config.host).client.vpn.getServerInfo({ requestId });
  } catch (error) {
    throw vpnAgentFailure(error);
  }
  try {
    return vpnConfigFile({
      privateKey: deps.secrets.open(config.private_key_encrypted),
      address: config.address,
      serverPublicKey: server.publicKey,
      endpoint: server.endpoint,
      allowedNetworks: server.allowedNetworks,
      dnsServers: server.dnsServers,
    });
  } catch (error) {
    if (!(error instanceof VpnConfigFileError)) throw error;
    deps.logger.error({ err: error, identifier: config.identifier }, 'the agent reports a VPN server setting the config file refuses');
    throw new HttpError(502, MISCONFIGURED);
  }
}

/** GET /api/vpn/qr: the same `.conf` as an SVG QR code, for the WireGuard app on a phone. */
export async function vpnConfigQrSvg(configText: string): Promise<string> {
  return QRCode.toString(configText, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}
