import type { Knex } from 'knex';
import { recordAudit } from '../audit/record-audit.ts';
import { User } from '../models/User.ts';
import { ADMIN_STATE_COLUMNS, adminAccountOf, adminStateSnapshot, type AdminAccount, type AdminStateRow } from '../queries/admins.ts';

export type RemoveAdminOutcome =
  | { change: 'removed' | 'unchanged'; admin: AdminAccount }
  /** No account has this address. */
  | { change: 'unknown' }
  /** The account is the last active admin: nobody could manage the school any more. */
  | { change: 'last-admin'; admin: AdminAccount };

/**
 * `devplein admin remove` (control-plane/src/cli/admin-cli.ts), and the group sync at sign-in
 * when the school's provider no longer says admin (sync-identity-groups.ts, by `userId`): the
 * account stops being an admin and keeps everything else (its developer flag, projects, access).
 * Refused for the last active admin. Every admin row is locked first, so two removes at once
 * cannot each leave the other as "the other admin" and end with none. One transaction with its
 * audit entry (user.admin, no actor, `reason`: "cli" unless given), written only when something
 * changed. The next request of a signed-in session sees the change (identity-cache notices).
 */
export async function removeAdmin(knex: Knex, request: { email: string } | { userId: number }, reason = 'cli'): Promise<RemoveAdminOutcome> {
  const email = 'email' in request ? request.email.trim().toLowerCase() : null;
  const matches = (row: AdminStateRow) => ('userId' in request ? row.id === request.userId : row.email.toLowerCase() === email);
  return knex.transaction(async (trx) => {
    const admins = await User.query(trx).where({ admin: true }).forUpdate().select(...ADMIN_STATE_COLUMNS);
    const before =
      admins.find(matches) ??
      ('userId' in request
        ? await User.query(trx).findById(request.userId).select(...ADMIN_STATE_COLUMNS)
        : await User.query(trx).whereRaw('lower(email) = ?', [email]).first().select(...ADMIN_STATE_COLUMNS));
    if (!before) return { change: 'unknown' };
    if (!before.admin) return { change: 'unchanged', admin: adminAccountOf(before) };
    const account = adminAccountOf(before);
    const otherActive = admins.some((row) => row.id !== before.id && adminAccountOf(row).active);
    if (account.active && !otherActive) return { change: 'last-admin', admin: account };
    // Through the model: its hook sets updated_at.
    await User.query(trx).findById(before.id).patch({ admin: false });
    await recordAudit(trx, {
      actorId: null,
      action: 'user.admin',
      subjectType: 'user',
      subjectId: before.id,
      before: adminStateSnapshot(before),
      after: { ...adminStateSnapshot({ ...before, admin: false }), reason },
    });
    return { change: 'removed', admin: account };
  });
}
