import useSWR, { mutate } from 'swr';
import { api, apiFetcher } from '../client.ts';
import type { AgentInvitationInput, AgentInvitationJson, AgentLinkJson } from '@devplein/contract/agent-links';
import { ADMIN_STATUS_KEY } from './status.ts';

/** The dev servers' links on the status page (issue 21): list, invite, revoke. Admins only. */

export const AGENT_LINKS_KEY = '/api/admin/agents';

export function useAgentLinks() {
  return useSWR<AgentLinkJson[]>(AGENT_LINKS_KEY, apiFetcher<AgentLinkJson[]>);
}

export async function inviteDevServer(input: AgentInvitationInput): Promise<AgentInvitationJson> {
  const invitation = await api.post<AgentInvitationJson>('/api/admin/agents/invitations', input);
  await mutate(AGENT_LINKS_KEY);
  return invitation;
}

export async function revokeDevServer(name: string): Promise<void> {
  await api.post<AgentLinkJson>(`/api/admin/agents/${encodeURIComponent(name)}/revoke`);
  await Promise.all([mutate(AGENT_LINKS_KEY), mutate(ADMIN_STATUS_KEY)]);
}

export const LINK_STATUS_LABELS: Readonly<Record<AgentLinkJson['status'], string>> = {
  invited: 'Uitgenodigd',
  active: 'Gekoppeld',
  revoked: 'Ingetrokken',
};
