import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AgentFleet, AgentLink } from '../agent/agent-fleet.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import { HttpError } from '../errors.ts';
import { VpnConfig } from '../models/VpnConfig.ts';
import { vpnConfigFile, VpnConfigFileError } from '../lib/vpn-config-file.ts';
import { MISCONFIGURED_VPN_MESSAGE, vpnAgentFailure } from '../agent/vpn-agent-failure.ts';

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

export async function loadVpnConfigOfUser(knex: Knex, userId: number): Promise<StoredVpnConfig | undefined> {
  return VpnConfig.query(knex).select(COLUMNS).findOne({ user_id: userId });
}

/** By the download path's identifier; a malformed one is simply not found. */
export async function loadVpnConfigByIdentifier(knex: Knex, identifier: string): Promise<StoredVpnConfig | undefined> {
  if (!UUID.test(identifier)) return undefined;
  return VpnConfig.query(knex).select(COLUMNS).findOne({ identifier: identifier.toLowerCase() });
}

/** Addresses of vpn_configs rows on this dev server (null rows belong to the first link). */
export async function parkedVpnAddresses(knex: Knex, agents: Pick<AgentFleet, 'link'>, link: AgentLink, exceptUserId: number): Promise<Set<string>> {
  const onFirst = agents.link(null).name === link.name;
  const rows = await VpnConfig.query(knex)
    .select('address')
    .whereNot('user_id', exceptUserId)
    .where((query) => void (onFirst ? query.where('host', link.name).orWhereNull('host') : query.where('host', link.name)));
  return new Set(rows.map((row) => row.address));
}

/**
 * GET /api/vpn/{identifier} (after the route authorized the row): the client's `.conf`, with the
 * server's key, endpoint and allowed networks as its dev server's agent reports them now.
 */
export async function vpnConfigText(
  deps: { agents: Pick<AgentFleet, 'link'>; secrets: SecretBox; logger: Logger },
  config: StoredVpnConfig, requestId?: string): Promise<string> {
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
    throw new HttpError(502, MISCONFIGURED_VPN_MESSAGE);
  }
}
