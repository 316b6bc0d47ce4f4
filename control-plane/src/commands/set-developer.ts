import type { Knex } from 'knex';
import { recordAudit } from '../audit/record-audit.ts';
import { destroySessionsOfUser } from './destroy-sessions.ts';
import type { AdminUserRow } from '../queries/users.ts';
import { User } from '../models/User.ts';
import { accountSnapshot, lockAdminUserRow } from '../queries/users.ts';

/**
 * PUT /api/admin/users/{id}/developer: sets or clears the developer flag (spec §1: databases,
 * VPN and SSH keys are for developers). Clearing it also ends every session of the user, as
 * disable does, so nothing they opened as a developer carries on. One transaction with its
 * audit entry (user.developer), written only when the flag changes. The host side (databases,
 * VPN peer, SSH keys and sessions) follows in applyUserAccess, after the commit.
 * Answers the updated row, or undefined for an unknown user. The group sync at sign-in
 * (sync-identity-groups.ts) calls it without actor and with a reason (kept in the audit entry).
 */
export async function setDeveloper(knex: Knex, actorId: number | null, userId: number, developer: boolean, reason?: string): Promise<AdminUserRow | undefined> {
  return knex.transaction(async (trx) => {
    const before = await lockAdminUserRow(trx, userId);
    if (!before) return undefined;
    if (before.developer === developer) return before;
    // Through the model: its hook sets updated_at.
    await User.query(trx).findById(userId).patch({ developer });
    const endedSessions = developer ? 0 : await destroySessionsOfUser(trx, userId);
    const after = (await lockAdminUserRow(trx, userId))!;
    await recordAudit(trx, {
      actorId,
      action: 'user.developer',
      subjectType: 'user',
      subjectId: userId,
      before: accountSnapshot(before),
      after: { ...accountSnapshot(after), ended_sessions: endedSessions, ...(reason ? { reason } : {}) },
    });
    return after;
  });
}
