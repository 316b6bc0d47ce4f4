import type { AgentLinkJson } from '@devplein/contract/agent-links';
import type { AgentLinkRow } from '../agent-links/agent-link-store.ts';

const iso = (value: Date | string | null): string | null => (value === null ? null : new Date(value).toISOString());

export function presentAgentLink(row: AgentLinkRow): AgentLinkJson {
  return {
    name: row.name,
    address: row.address,
    siteDomain: row.site_domain,
    status: row.status,
    origin: row.origin,
    fingerprint: row.cert_fingerprint,
    certificateNotAfter: iso(row.cert_not_after),
    createdAt: iso(row.created_at) as string,
    joinedAt: iso(row.joined_at),
    revokedAt: iso(row.revoked_at),
  };
}
