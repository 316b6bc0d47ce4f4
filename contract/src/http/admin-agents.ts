/** The dev servers' links (issue 21), admins only, every write audited: list, invite, revoke. */
import { z } from 'zod';
import { AGENT_LINK_NAME_PATTERN, agentInvitationInput, agentInvitationJson, agentLinkJson } from '../agent-links.ts';
import { endpoint, json } from './endpoint.ts';

export const listAgentLinks = endpoint({
  method: 'GET',
  path: '/api/admin/agents',
  access: 'admin',
  summary: "Every dev server's link (configured or joined), with its status and pinned certificate.",
  answer: json(z.array(agentLinkJson)),
});

export const inviteAgent = endpoint({
  method: 'POST',
  path: '/api/admin/agents/invitations',
  access: 'admin',
  summary:
    'A one-time join command for a new dev server: 201 with it (not stored, no-store). 503 when joining is off (no CA key), 422 on `site_domain` when another link has it, 409 when the name is taken. Audited agent.invite.',
  body: agentInvitationInput,
  answer: json(agentInvitationJson),
});

export const revokeAgent = endpoint({
  method: 'POST',
  path: '/api/admin/agents/:name/revoke',
  access: 'admin',
  summary: 'Ends a link (the fleet drops it at once): answers the link. Unknown or revoked: 404; the last active link: 409. Audited agent.revoke.',
  params: z.object({ name: z.string().regex(AGENT_LINK_NAME_PATTERN, 'Onbekende ontwikkelserver.') }),
  answer: json(agentLinkJson),
});

export const adminAgentLinkEndpoints = [listAgentLinks, inviteAgent, revokeAgent];
