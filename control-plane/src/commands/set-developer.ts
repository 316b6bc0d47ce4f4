import type { Knex } from 'knex';
import { recordAudit } from '../audit/record-audit.ts';
import { destroySessionsOfUser } from '../auth/session-store.ts';
import type { AdminUserRow } from '../presenters/present-admin-user.ts';
import { accountSnapshot, lockAdminUserRow } from './admin-user-rows.ts';

/**
 * PUT /api/admin/users/{id}/developer: sets or clears the developer flag (spec §1: databases,
 * VPN and SSH keys are for developers). Clearing it also ends every session of the user, as
 * disable does, so nothing they opened as a developer carries on. One transaction with its
 * audit entry (user.developer), written only when the flag changes. The host side (databases,
 * VPN peer, SSH keys and sessions) follows in applyUserAccess, after the commit.
 * Answers the updated row, or undefined for an unknown user.
 */
export async function setDeveloper(knex: Knex, actorId: number, userId: number, developer: boolean): Promise<AdminUserRow | undefined> {
  return knex.transaction(async (trx) => {
    const before = await lockAdminUserRow(trx, userId);
    if (!before) return undefined;
    if (before.developer === developer) return before;
    await trx('users').where({ id: userId }).update({ developer, updated_at: trx.fn.now() });
    const endedSessions = developer ? 0 : await destroySessionsOfUser(trx, userId);
    const after = (await lockAdminUserRow(trx, userId))!;
    await recordAudit(trx, {
      actorId,
      action: 'user.developer',
      subjectType: 'user',
      subjectId: userId,
      before: accountSnapshot(before),
      after: { ...accountSnapshot(after), ended_sessions: endedSessions },
    });
    return after;
  });
}
