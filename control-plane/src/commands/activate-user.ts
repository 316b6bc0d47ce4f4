import type { Knex } from 'knex';
import { recordAudit } from '../audit/record-audit.ts';
import type { AdminUserRow } from '../queries/users.ts';
import { User } from '../models/User.ts';
import { accountSnapshot, lockAdminUserRow } from '../queries/users.ts';

/**
 * Action verify (spec §4): the account counts as activated from now on, and a disable is lifted,
 * so the user can sign in again. One transaction with its audit entry (user.verify).
 * Answers the updated row, or undefined for an unknown user.
 */
export async function activateUser(knex: Knex, actorId: number, userId: number): Promise<AdminUserRow | undefined> {
  return knex.transaction(async (trx) => {
    const before = await lockAdminUserRow(trx, userId);
    if (!before) return undefined;
    // Through the model: its hook sets updated_at.
    await User.query(trx).findById(userId).patch({ email_verified_at: trx.fn.now(), disabled_at: null });
    const after = (await lockAdminUserRow(trx, userId))!;
    await recordAudit(trx, {
      actorId,
      action: 'user.verify',
      subjectType: 'user',
      subjectId: userId,
      before: accountSnapshot(before),
      after: accountSnapshot(after),
    });
    return after;
  });
}
