import type { Knex } from 'knex';
import type { SecretBox } from '../crypto/secret-box.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { credentialAddressOf } from '../lib/git-credential.ts';
import { newWebhookSecret } from '../crypto/webhook-secret.ts';

type Db = Knex | Knex.Transaction;

/** Why a stored token was dropped (the audit entry's `reason`). */
export type TokenDropReason = 'repository-changed' | 'owner-left' | 'owner-disabled';

interface TokenRow {
  project_id: number;
  user_id: number;
  address: string;
}

async function dropTokens(db: Db, rows: TokenRow[], actorId: number | null, reason: TokenDropReason, after: Record<string, unknown> = {}): Promise<void> {
  for (const row of rows) {
    await db('project_git_tokens').where({ project_id: row.project_id }).delete();
    await recordAudit(db, {
      actorId,
      action: 'project.git-token.drop',
      subjectType: 'project',
      subjectId: row.project_id,
      before: { address: row.address, storedBy: Number(row.user_id) },
      after: { reason, ...after },
    });
  }
}

const tokenColumns = ['project_id', 'user_id', 'address'] as const;

/**
 * Call in the transaction that stores a project's new `repro`: a stored token entered for another
 * address is dropped (audited as `project.git-token.drop`, reason 'repository-changed'); one for the
 * same address written differently (lib/git-credential.ts) stays.
 */
export async function dropTokenOfMovedRepository(db: Db, projectId: number, repro: string | null, actorId: number | null): Promise<void> {
  const row = await db('project_git_tokens').where({ project_id: projectId }).first<TokenRow | undefined>(tokenColumns);
  if (!row || row.address === credentialAddressOf(repro)) return;
  await dropTokens(db, [row], actorId, 'repository-changed', { repro });
}

/**
 * Call in the transaction that removes members from a project: a token one of them stored goes
 * (reason 'owner-left'), and the webhook secret they could read is renewed with the card's
 * banner ('member-left') until the git server signs with the new one.
 */
export async function projectMembersLeft(db: Db, secrets: SecretBox, projectId: number, userIds: readonly number[], actorId: number | null): Promise<void> {
  if (userIds.length === 0) return;
  const tokens = await db('project_git_tokens').where({ project_id: projectId }).whereIn('user_id', [...userIds]).select<TokenRow[]>(tokenColumns);
  await dropTokens(db, tokens, actorId, 'owner-left');
  // Only a project with a repository shows (and so gave away) a webhook secret.
  const project = await db('projects').where('id', projectId).first<{ repro: string | null } | undefined>('repro');
  if (project?.repro) await renewWebhookSecretIn(db, secrets, projectId, actorId, 'member-left', { left: [...userIds] });
}

/** Call in the transaction that disables an account: every token it stored goes (reason 'owner-disabled'). */
export async function dropTokensOfUser(db: Db, userId: number, actorId: number | null): Promise<void> {
  const tokens = await db('project_git_tokens').where({ user_id: userId }).select<TokenRow[]>(tokenColumns);
  await dropTokens(db, tokens, actorId, 'owner-disabled');
}

/**
 * A new random webhook secret, stored sealed; the old one stops working at once. Audited without
 * the secret. `reason` 'member-left' also sets the card's banner; a member's own renewal leaves it.
 */
export async function renewWebhookSecretIn(
  db: Db,
  secrets: SecretBox,
  projectId: number,
  actorId: number | null,
  reason: 'member-left' | 'asked',
  details: Record<string, unknown> = {},
): Promise<void> {
  await db('projects')
    .where('id', projectId)
    .update({
      webhook_secret_sealed: secrets.seal(newWebhookSecret()),
      ...(reason === 'member-left' ? { webhook_secret_notice: 'member-left', webhook_secret_notice_since: db.fn.now() } : {}),
    });
  await recordAudit(db, { actorId, action: 'project.webhook-secret', subjectType: 'project', subjectId: projectId, after: { reason, ...details } });
}
