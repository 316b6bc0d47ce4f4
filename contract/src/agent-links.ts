import { z } from 'zod';

/** The dev servers' links (issue 21): invite, join, revoke. JSON shapes and the invitation form's rules. */

export const AGENT_LINK_NAME_PATTERN = /^[a-z][a-z0-9-]{0,30}$/;
const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/;
const SITE_DOMAIN = /^(?=.{1,200}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/;

/** POST /api/admin/agents/invitations (and `devplein agent invite`). */
export const agentInvitationInput = z.object({
  name: z
    .string({ error: 'Geef de ontwikkelserver een naam, bijvoorbeeld dev2.' })
    .trim()
    .regex(AGENT_LINK_NAME_PATTERN, 'Gebruik kleine letters, cijfers en streepjes (hoogstens 31), beginnend met een letter, bijvoorbeeld dev2.'),
  address: z
    .string({ error: 'Vul het adres van de agent in, bijvoorbeeld dev2.school.nl:7443.' })
    .trim()
    .regex(HOST_PORT, 'Vul het adres in als naam:poort, bijvoorbeeld dev2.school.nl:7443.'),
  site_domain: z
    .string({ error: 'Vul het sitedomein in, bijvoorbeeld dev2.school.nl.' })
    .trim()
    .toLowerCase()
    .regex(SITE_DOMAIN, 'Vul een domeinnaam in, bijvoorbeeld dev2.school.nl.'),
  db_host: z.string().trim().min(1).max(300).optional(),
  db_admin_url: z.string().trim().min(1).max(500).optional(),
});
export type AgentInvitationInput = z.infer<typeof agentInvitationInput>;

export const agentLinkStatusJson = z.enum(['invited', 'active', 'revoked']);
export type AgentLinkStatusJson = z.infer<typeof agentLinkStatusJson>;

/** One dev server's link as the status page lists it. */
export const agentLinkJson = z.strictObject({
  name: z.string(),
  address: z.string(),
  siteDomain: z.string(),
  status: agentLinkStatusJson,
  /** 'config': from AGENT_LINKS_FILE/AGENT_ADDRESS; 'join': invited and joined. */
  origin: z.enum(['config', 'join']),
  /** sha256 of the pinned agent certificate (hex), null when not pinned. */
  fingerprint: z.string().nullable(),
  certificateNotAfter: z.iso.datetime({ offset: true }).nullable(),
  createdAt: z.iso.datetime({ offset: true }),
  joinedAt: z.iso.datetime({ offset: true }).nullable(),
  revokedAt: z.iso.datetime({ offset: true }).nullable(),
});
export type AgentLinkJson = z.infer<typeof agentLinkJson>;

/** The answer to an invitation: shown once. */
export const agentInvitationJson = z.strictObject({
  name: z.string(),
  /** `sudo ./install.sh agent [--signer '…'] --join -`, to run on the new server; it then asks for the join string. */
  joinCommand: z.string(),
  /** `<url>#<token>.<ca sha256>`, pasted at install.sh's question (on no command line). */
  joinString: z.string(),
  expiresAt: z.iso.datetime({ offset: true }),
});
export type AgentInvitationJson = z.infer<typeof agentInvitationJson>;

/** POST /api/agents/join (Authorization: Bearer <token>) and /api/agents/renew: the signed certificate and the link CA. */
export const agentJoinJson = z.strictObject({
  name: z.string(),
  commonName: z.string(),
  certificate: z.string(),
  ca: z.string(),
  fingerprint: z.string(),
  notAfter: z.iso.datetime({ offset: true }),
});
export type AgentJoinJson = z.infer<typeof agentJoinJson>;
