import { isUniqueViolation } from '../db/database-errors.ts';
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AgentFleet } from '../agent/agent-fleet.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import { VpnConfig } from '../models/VpnConfig.ts';
import { loadVpnConfigOfUser } from '../queries/vpn.ts';
import { vpnAgentFailure } from '../agent/vpn-agent-failure.ts';
import { generateWireguardKeyPair } from '../lib/wireguard-keys.ts';
import type { AppLocks } from '../app-context.ts';
import { userHomeHost } from '../queries/users.ts';
import { createPeerOnFreeAddress } from './create-vpn-peer.ts';

export interface VpnCommandDeps {
  knex: Knex;
  agents: Pick<AgentFleet, 'link' | 'forNewUsers'>;
  secrets: SecretBox;
  logger: Logger;
  /** `userVpns`: one POST /api/vpn at a time per user (a double click must not make a second peer). */
  locks: Pick<AppLocks, 'userVpns'>;
}

// objection wraps the driver's error (db-errors): its code is on nativeError then.

/**
 * POST /api/vpn: the user's configuration, made when there is none, on the dev server of the
 * student's databases (userHomeHost), so it reaches them. The control plane makes the
 * client key pair, the agent gets only the public key and hands out the address; the private key
 * is stored sealed, so the file can be downloaded again. A failed agent call stores nothing; if
 * storing fails afterwards the peer is removed again (and an existing configuration, made
 * meanwhile by another process, is returned instead of a second one).
 */
export async function createUserVpn(deps: VpnCommandDeps, userId: number, requestId?: string): Promise<{ identifier: string }> {
  return deps.locks.userVpns.run(userId, async () => {
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
      await VpnConfig.query(deps.knex).insert({
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
