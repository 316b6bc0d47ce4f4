import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import { recordAudit } from '../audit/record-audit.ts';
import type { AgentLinkSettings } from '../config.ts';

/*
 * The agent links in PostgreSQL (migration 0014): the seed from the configuration, the
 * invitation with its one-time join token, the join that redeems it, and the revoke. Each write
 * fires migration 0014's `a` notice, on which every control plane reloads its fleet
 * (agent-links/fleet-links.ts).
 */

export type AgentLinkStatus = 'invited' | 'active' | 'revoked';

export interface AgentLinkRow {
  id: number;
  name: string;
  address: string;
  server_name: string | null;
  site_domain: string;
  student_db_host: string | null;
  student_db_port: number | null;
  db_admin_url: string | null;
  cert_fingerprint: string | null;
  cert_not_after: Date | null;
  /**
   * The fingerprint renewed from, accepted beside cert_fingerprint (to connect, and to renew again)
   * until the agent is seen with the new one (recordPinnedCertificateSeen, issue 35), at most
   * until its own end (migration 0015).
   */
  previous_cert_fingerprint: string | null;
  renewed_at: Date | null;
  status: AgentLinkStatus;
  origin: 'config' | 'join';
  created_by: number | null;
  created_at: Date;
  joined_at: Date | null;
  revoked_by: number | null;
  revoked_at: Date | null;
}

/** An active link as the fleet uses it: the settings plus the pinned fingerprint (null: not pinned). */
export interface StoredAgentLink extends AgentLinkSettings {
  fingerprint: string | null;
  /** Still accepted right after a renewal, until the agent switched (null: none). */
  previousFingerprint: string | null;
}

/** How long an invitation's token can be redeemed. */
export const JOIN_TOKEN_TTL_MS = 60 * 60_000;

/** sha256 (hex) of a join token: only this is stored. */
export function hashJoinToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A fresh join token: 256 random bits, base64url (43 characters). */
export function newJoinToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The configured links (AGENT_LINKS_FILE / AGENT_ADDRESS) into the table: a missing name is
 * inserted; a link that came from the configuration follows the file; a joined or revoked link is
 * never overwritten (its name in the file is then ignored).
 */
export async function seedAgentLinks(knex: Knex, links: readonly AgentLinkSettings[]): Promise<void> {
  await knex.transaction(async (trx) => {
    for (const link of links) {
      const values = {
        address: link.address,
        server_name: link.serverName ?? null,
        site_domain: link.siteDomain,
        student_db_host: link.studentDbHost,
        student_db_port: link.studentDbPort,
        db_admin_url: link.dbAdminUrl,
      };
      const existing = await trx<AgentLinkRow>('agent_links').where({ name: link.name }).first();
      if (!existing) await trx('agent_links').insert({ name: link.name, ...values, status: 'active', origin: 'config' });
      else if (existing.origin === 'config' && existing.status === 'active') {
        const changed = (Object.keys(values) as Array<keyof typeof values>).some((key) => existing[key] !== values[key]);
        if (changed) await trx('agent_links').where({ id: existing.id }).update(values);
      }
    }
  });
}

/** Every active link in the order they were added (the first is where rows without a host live). */
export async function readActiveAgentLinks(knex: Knex, defaults: Pick<AgentLinkSettings, 'studentDbHost' | 'studentDbPort' | 'dbAdminUrl'>): Promise<StoredAgentLink[]> {
  const rows = await knex<AgentLinkRow>('agent_links').where({ status: 'active' }).orderBy('id');
  return rows.map((row) => ({
    name: row.name,
    address: row.address,
    ...(row.server_name ? { serverName: row.server_name } : {}),
    siteDomain: row.site_domain,
    studentDbHost: row.student_db_host ?? defaults.studentDbHost,
    studentDbPort: row.student_db_port ?? defaults.studentDbPort,
    dbAdminUrl: row.db_admin_url ?? defaults.dbAdminUrl,
    fingerprint: row.cert_fingerprint,
    previousFingerprint: row.cert_fingerprint ? row.previous_cert_fingerprint : null,
  }));
}

/** Every link, any status (the status page and `devplein agent list`). */
export async function listAgentLinks(knex: Knex): Promise<AgentLinkRow[]> {
  return knex<AgentLinkRow>('agent_links').orderBy('id');
}

export interface AgentInvitationInput {
  name: string;
  address: string;
  siteDomain: string;
  studentDbHost?: string | undefined;
  dbAdminUrl?: string | undefined;
  /** The admin (null: `devplein agent invite` on the server). */
  actorId: number | null;
  now?: Date;
}

export interface AgentInvitation {
  link: AgentLinkRow;
  /** Shown once; only its hash is stored. */
  token: string;
  expiresAt: Date;
}

/** Why an invitation or a revoke was refused; `message` is Dutch. */
export class AgentLinkRefusal extends Error {
  constructor(
    readonly reason: 'active' | 'site-domain' | 'unknown',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Invites a dev server: a link row `invited` (new, or a revoked/invited one of the same name made
 * new) and a one-time token valid for JOIN_TOKEN_TTL_MS. An active link of the name is refused
 * (revoke it first); an earlier token of the name stops working. Audited (agent.invite).
 */
export async function inviteAgent(knex: Knex, input: AgentInvitationInput): Promise<AgentInvitation> {
  try {
    return await inviteAgentOnce(knex, input);
  } catch (error) {
    // Two invitations of a new name at once: the other one inserted the row between our look and
    // our insert (a unique violation). Once more, the row is there and is made new under its lock.
    if ((error as { code?: unknown }).code !== '23505') throw error;
    return inviteAgentOnce(knex, input);
  }
}

async function inviteAgentOnce(knex: Knex, input: AgentInvitationInput): Promise<AgentInvitation> {
  const now = input.now ?? new Date();
  const token = newJoinToken();
  const expiresAt = new Date(now.getTime() + JOIN_TOKEN_TTL_MS);
  const link = await knex.transaction(async (trx) => {
    const existing = await trx<AgentLinkRow>('agent_links').where({ name: input.name }).forUpdate().first();
    if (existing?.status === 'active') {
      throw new AgentLinkRefusal('active', `Ontwikkelserver ${input.name} is al gekoppeld. Trek de koppeling eerst in.`);
    }
    const sameDomain = await trx<AgentLinkRow>('agent_links').whereNot({ name: input.name }).whereNot({ status: 'revoked' }).where({ site_domain: input.siteDomain }).first();
    if (sameDomain) throw new AgentLinkRefusal('site-domain', `Het sitedomein ${input.siteDomain} hoort al bij ontwikkelserver ${sameDomain.name}.`);
    const values = {
      address: input.address,
      server_name: null,
      site_domain: input.siteDomain,
      student_db_host: input.studentDbHost ?? null,
      student_db_port: null,
      db_admin_url: input.dbAdminUrl ?? null,
      cert_fingerprint: null,
      cert_not_after: null,
      previous_cert_fingerprint: null,
      renewed_at: null,
      status: 'invited' as const,
      origin: 'join' as const,
      created_by: input.actorId,
      created_at: now,
      joined_at: null,
      revoked_by: null,
      revoked_at: null,
    };
    let row: AgentLinkRow;
    if (existing) {
      await trx('agent_join_tokens').where({ agent_link_id: existing.id }).delete();
      [row] = (await trx('agent_links').where({ id: existing.id }).update(values).returning('*')) as [AgentLinkRow];
    } else {
      [row] = (await trx('agent_links').insert({ name: input.name, ...values }).returning('*')) as [AgentLinkRow];
    }
    await trx('agent_join_tokens').insert({ agent_link_id: row.id, token_hash: hashJoinToken(token), expires_at: expiresAt, created_by: input.actorId, created_at: now });
    await recordAudit(trx, {
      actorId: input.actorId,
      action: 'agent.invite',
      subjectType: 'agent_link',
      subjectId: row.name,
      before: existing ? { status: existing.status } : null,
      after: { status: 'invited', address: row.address, site_domain: row.site_domain, expires_at: expiresAt.toISOString() },
    });
    return row;
  });
  return { link, token, expiresAt };
}

/** Why a join token does not work: unknown (401) or used/expired (410). */
export class JoinTokenError extends Error {
  constructor(readonly reason: 'unknown' | 'used' | 'expired') {
    super(reason === 'unknown' ? 'Deze koppelcode is onbekend.' : reason === 'used' ? 'Deze koppelcode is al gebruikt.' : 'Deze koppelcode is verlopen. Vraag een nieuwe aan.');
  }
}

export interface JoinedCertificate {
  certPem: string;
  fingerprint: string;
  notAfter: Date;
}

/**
 * Redeems a join token: in one transaction the token is checked (known, unused, unexpired, its
 * link still invited) and locked, `issue` signs the certificate (it throws for a bad CSR: then
 * nothing changes and the token still works), and the link becomes active with the certificate's
 * fingerprint pinned. A second redemption fails with JoinTokenError('used').
 */
export async function redeemJoinToken(
  knex: Knex,
  token: string,
  issue: (link: AgentLinkRow) => Promise<JoinedCertificate>,
  now: Date = new Date(),
): Promise<{ link: AgentLinkRow; certificate: JoinedCertificate }> {
  const hash = hashJoinToken(token);
  return knex.transaction(async (trx) => {
    const row = await trx('agent_join_tokens').where({ token_hash: hash }).forUpdate().first();
    // The lookup is by hash; the comparison below only guards against a collation surprise.
    if (!row || !timingSafeEqual(Buffer.from(String(row.token_hash)), Buffer.from(hash))) throw new JoinTokenError('unknown');
    if (row.used_at) throw new JoinTokenError('used');
    if (new Date(row.expires_at).getTime() <= now.getTime()) throw new JoinTokenError('expired');
    const link = await trx<AgentLinkRow>('agent_links').where({ id: row.agent_link_id }).forUpdate().first();
    if (!link || link.status !== 'invited') throw new JoinTokenError('used');
    const certificate = await issue(link);
    await trx('agent_join_tokens').where({ id: row.id }).update({ used_at: now });
    const [joined] = (await trx('agent_links')
      .where({ id: link.id })
      .update({ status: 'active', cert_fingerprint: certificate.fingerprint, cert_not_after: certificate.notAfter, joined_at: now })
      .returning('*')) as [AgentLinkRow];
    await recordAudit(trx, {
      actorId: null,
      action: 'agent.join',
      subjectType: 'agent_link',
      subjectId: link.name,
      before: { status: 'invited' },
      after: { status: 'active', cert_fingerprint: certificate.fingerprint, cert_not_after: certificate.notAfter.toISOString() },
    });
    return { link: joined, certificate };
  });
}

/**
 * Revokes a link (active or invited): status revoked, its unused tokens void. The fleet drops it
 * on the notice; its pinned fingerprint stays as the record of what was trusted. Answers the
 * row, or null for an unknown or already revoked name. Audited (agent.revoke).
 */
export async function revokeAgent(knex: Knex, name: string, actorId: number | null, now: Date = new Date()): Promise<AgentLinkRow | null> {
  return knex.transaction(async (trx) => {
    const existing = await trx<AgentLinkRow>('agent_links').where({ name }).whereNot({ status: 'revoked' }).forUpdate().first();
    if (!existing) return null;
    if (existing.status === 'active') {
      const [{ count }] = (await trx('agent_links').where({ status: 'active' }).count({ count: '*' })) as [{ count: string | number }];
      if (Number(count) <= 1) throw new AgentLinkRefusal('active', `Ontwikkelserver ${name} is de laatste gekoppelde server; koppel eerst een andere.`);
    }
    await trx('agent_join_tokens').where({ agent_link_id: existing.id }).whereNull('used_at').delete();
    const [row] = (await trx('agent_links').where({ id: existing.id }).update({ status: 'revoked', revoked_at: now, revoked_by: actorId, previous_cert_fingerprint: null }).returning('*')) as [AgentLinkRow];
    await recordAudit(trx, {
      actorId,
      action: 'agent.revoke',
      subjectType: 'agent_link',
      subjectId: name,
      before: { status: existing.status, cert_fingerprint: existing.cert_fingerprint },
      after: { status: 'revoked' },
    });
    return row;
  });
}

/** Why a renewal is refused: 403 for every case (`message` is Dutch and names no other link). */
export class RenewalRefusal extends Error {}

/**
 * Renews an active joined link's certificate (POST /api/agents/renew): the caller proved it holds
 * the certificate with `presented` fingerprint (its pin, or the one it renewed from when the
 * answer of a renewal was lost); `issue` signs the new one. In one transaction under the row's
 * lock: the new fingerprint pinned, the presented one kept as previous (accepted until the
 * agent is seen with the new one, at most until its own end), audited (agent.renew). Refused:
 * no active link of that name pins it, or it is the previous one and the control plane has
 * already seen the agent with its successor in a handshake (recordPinnedCertificateSeen cleared
 * it): a key copied before a rotation renews nothing after it (issue 35).
 */
export async function renewAgentCertificate(
  knex: Knex,
  input: { name: string; presented: string },
  issue: (link: AgentLinkRow) => Promise<JoinedCertificate>,
  now: Date = new Date(),
): Promise<{ link: AgentLinkRow; certificate: JoinedCertificate }> {
  return knex.transaction(async (trx) => {
    const link = await trx<AgentLinkRow>('agent_links').where({ name: input.name, status: 'active', origin: 'join' }).forUpdate().first();
    if (!link || (link.cert_fingerprint !== input.presented && link.previous_cert_fingerprint !== input.presented)) {
      throw new RenewalRefusal('Dit certificaat hoort niet (meer) bij een gekoppelde ontwikkelserver. Nodig de server opnieuw uit (devplein agent invite).');
    }
    const certificate = await issue(link);
    const [renewed] = (await trx('agent_links')
      .where({ id: link.id })
      .update({ cert_fingerprint: certificate.fingerprint, cert_not_after: certificate.notAfter, previous_cert_fingerprint: input.presented, renewed_at: now })
      .returning('*')) as [AgentLinkRow];
    await recordAudit(trx, {
      actorId: null,
      action: 'agent.renew',
      subjectType: 'agent_link',
      subjectId: link.name,
      before: { cert_fingerprint: link.cert_fingerprint, cert_not_after: link.cert_not_after?.toISOString() ?? null },
      after: { cert_fingerprint: certificate.fingerprint, cert_not_after: certificate.notAfter.toISOString(), previous_cert_fingerprint: input.presented },
    });
    return { link: renewed, certificate };
  });
}

/**
 * The control plane saw the agent of `name` present its pinned certificate `fingerprint` in a
 * TLS handshake (agent/agent-client.ts onPinnedSeen): it switched from the one it renewed from,
 * so that one is no longer accepted, neither to connect nor to renew (issue 35). Only while
 * that pin is still the link's; the update's `a` notice reloads the fleet (a client without the
 * previous fingerprint). Answers whether a previous fingerprint was cleared.
 */
export async function recordPinnedCertificateSeen(knex: Knex, name: string, fingerprint: string): Promise<boolean> {
  const cleared = await knex('agent_links')
    .where({ name, status: 'active', cert_fingerprint: fingerprint })
    .whereNotNull('previous_cert_fingerprint')
    .update({ previous_cert_fingerprint: null });
  return cleared > 0;
}
