import * as grpc from '@grpc/grpc-js';
import type { Knex } from 'knex';
import type { AgentFleet, AgentLink } from '../agent/agent-fleet.ts';
import { AgentError } from '../agent/agent-error.ts';
import type { CreatePeerInput, PeerView } from '../agent/vpn-views.ts';
import { parkedVpnAddresses } from '../queries/vpn.ts';
import { peerAddressesOf } from '../lib/vpn-peer-addresses.ts';

/**
 * A VPN peer on an address nobody else holds. The agent hands out the lowest address it has
 * free, but it only knows the peers on its interface: the peer of a student who is disabled (or
 * no developer any more) is removed there while their configuration — and so their address —
 * stays in vpn_configs, to come back when they do. Such a parked address must not go to someone
 * else, or the student's own .conf would stop working on their return (and the address column's
 * unique index refuses the newcomer's row).
 */

const alreadyExists = (error: unknown): boolean => error instanceof AgentError && error.code === 'ALREADY_EXISTS';

/**
 * CreatePeer for `input` on an address that is neither the agent's nor parked in vpn_configs:
 * the requested one when it is free, else the agent's choice when that is not parked, else the
 * lowest address of the pool free on both sides. Throws what the agent throws (a full pool:
 * RESOURCE_EXHAUSTED as the agent says it).
 */
export async function createPeerOnFreeAddress(
  deps: { knex: Knex; agents: Pick<AgentFleet, 'link'> },
  link: AgentLink,
  input: CreatePeerInput,
  requestId?: string,
): Promise<{ peer: PeerView | null; created: boolean }> {
  const vpn = link.client.vpn;
  const parked = await parkedVpnAddresses(deps.knex, deps.agents, link, input.userId);
  if (!input.address || !parked.has(input.address)) {
    try {
      const answer = await vpn.createPeer(input, { requestId });
      if (!answer.peer || !parked.has(answer.peer.address)) return answer;
      await vpn.removePeer(input.publicKey, { requestId });
    } catch (error) {
      if (!input.address || !alreadyExists(error)) throw error;
    }
  }
  const [server, peers] = await Promise.all([vpn.getServerInfo({ requestId }), vpn.listPeers({ requestId })]);
  const taken = new Set([...parked, ...peers.map((peer) => peer.address)]);
  const free = peerAddressesOf(server.addressPool).find((address) => !taken.has(address));
  if (!free) throw new AgentError(grpc.status.RESOURCE_EXHAUSTED, `every free address of ${server.addressPool} is kept for a student who may come back`, 'CreatePeer');
  return vpn.createPeer({ ...input, address: free }, { requestId });
}
