import type { Knex } from 'knex';
import { recordAudit } from '../audit/record-audit.ts';
import { User } from '../models/User.ts';
import { ADMIN_STATE_COLUMNS, adminStateSnapshot } from '../queries/admins.ts';

/**
 * Gives an existing account the admin flag and nothing else: unlike `devplein admin create`
 * (create-initial-admin.ts) it neither activates nor enables the account; a teacher still
 * activates a new one. Used by the group sync at sign-in (sync-identity-groups.ts). One
 * transaction with its audit entry (user.admin, no actor, `reason`), written only when the flag
 * changes. Answers whether it changed; false for an unknown user too.
 */
export async function grantAdmin(knex: Knex, userId: number, reason: string): Promise<boolean> {
  return knex.transaction(async (trx) => {
    const before = await User.query(trx).findById(userId).forUpdate().select(...ADMIN_STATE_COLUMNS);
    if (!before || before.admin) return false;
    // Through the model: its hook sets updated_at.
    await User.query(trx).findById(userId).patch({ admin: true });
    await recordAudit(trx, {
      actorId: null,
      action: 'user.admin',
      subjectType: 'user',
      subjectId: userId,
      before: adminStateSnapshot(before),
      after: { ...adminStateSnapshot({ ...before, admin: true }), reason },
    });
    return true;
  });
}
