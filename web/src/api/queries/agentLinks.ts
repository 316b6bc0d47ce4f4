import { mutate } from 'swr';
import type { AgentInvitationInput, AgentInvitationJson, AgentLinkJson } from '@devplein/contract/agent-links';
import { inviteAgent, listAgentLinks, revokeAgent } from '@devplein/contract/http/admin-agents';
import { adminStatus } from '@devplein/contract/http/admin-status';
import { call, keyOf, useEndpoint } from '../endpoints.ts';

/** The dev servers' links on the status page (issue 21): list, invite, revoke. Admins only. */

export function useAgentLinks() {
  return useEndpoint(listAgentLinks, {});
}

export async function inviteDevServer(input: AgentInvitationInput): Promise<AgentInvitationJson> {
  const invitation = await call(inviteAgent, { body: input });
  await mutate(keyOf(listAgentLinks, {}));
  return invitation;
}

export async function revokeDevServer(name: string): Promise<void> {
  await call(revokeAgent, { params: { name } });
  await Promise.all([mutate(keyOf(listAgentLinks, {})), mutate(keyOf(adminStatus, {}))]);
}

export const LINK_STATUS_LABELS: Readonly<Record<AgentLinkJson['status'], string>> = {
  invited: 'Uitgenodigd',
  active: 'Gekoppeld',
  revoked: 'Ingetrokken',
};
