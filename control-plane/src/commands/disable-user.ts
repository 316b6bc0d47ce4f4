import type { Knex } from 'knex';
import { recordAudit } from '../audit/record-audit.ts';
import { destroySessionsOfUser } from './destroy-sessions.ts';
import type { AdminUserRow } from '../queries/users.ts';
import { User } from '../models/User.ts';
import { accountSnapshot, lockAdminUserRow } from '../queries/users.ts';
import { dropTokensOfUser } from './deploy-credentials.ts';

/**
 * Action disable (spec §4): marks the account disabled and ends every session of the user in the
 * same transaction, so their next request is 401 and a new sign-in is refused (school-login
 * checks disabled_at) until an admin activates them again. Audit entry user.disable (with
 * `reason` when another action disables first, e.g. a delete).
 * Answers the updated row, or undefined for an unknown user.
 */
export async function disableUser(knex: Knex, actorId: number, userId: number, reason?: string): Promise<AdminUserRow | undefined> {
  return knex.transaction(async (trx) => {
    const before = await lockAdminUserRow(trx, userId);
    if (!before) return undefined;
    // Through the model: its hook sets updated_at.
    await User.query(trx).findById(userId).patch({ disabled_at: trx.fn.now() });
    const endedSessions = await destroySessionsOfUser(trx, userId);
    // The HTTPS tokens they stored for projects go with them (issue 35); activating again does not bring them back.
    await dropTokensOfUser(trx, userId, actorId);
    const after = (await lockAdminUserRow(trx, userId))!;
    await recordAudit(trx, {
      actorId,
      action: 'user.disable',
      subjectType: 'user',
      subjectId: userId,
      before: accountSnapshot(before),
      after: { ...accountSnapshot(after), ended_sessions: endedSessions, ...(reason ? { reason } : {}) },
    });
    return after;
  });
}
