import type { Knex } from 'knex';
import { recordAudit } from '../audit/record-audit.ts';
import { recordPendingAccess } from './pending-host-access.ts';
import { slugifyName } from '../lib/slugify-name.ts';
import { User } from '../models/User.ts';
import { ADMIN_STATE_COLUMNS, adminAccountOf, adminStateSnapshot, type AdminAccount, type AdminStateRow } from '../queries/admins.ts';

export interface InitialAdminOutcome {
  /** created: a new account; promoted: an existing one made an activated admin; unchanged: it already was one. */
  change: 'created' | 'promoted' | 'unchanged';
  admin: AdminAccount;
  /** A developer enabled or activated again: the running control plane's retry job gives back their dev-server access. */
  hostAccessPending: boolean;
}

/**
 * `devplein admin create` (control-plane/src/cli/admin-cli.ts): makes `email` an activated admin
 * who can sign in. A new address gets a new account, linked to the school account at its first
 * sign-in by e-mail (user-upsert.ts); an existing account is made admin, activated and, when
 * disabled, enabled again, and keeps its name (the school's provider sets it at sign-in). A
 * second run changes nothing. One transaction with its audit entry (user.admin, no actor,
 * reason "cli"), written only when something changed. A developer enabled or activated again
 * gets a pending host-access intent in the same transaction (reason user.verify, as the web's
 * Activeer): this command reaches no dev server, the control plane's retry job does within a
 * minute, and gives back their databases, VPN peer and SSH keys.
 */
export async function createInitialAdmin(knex: Knex, request: { email: string; name?: string }): Promise<InitialAdminOutcome> {
  const email = request.email.trim().toLowerCase();
  return knex.transaction(async (trx) => {
    const before = await User.query(trx).whereRaw('lower(email) = ?', [email]).forUpdate().first().select(...ADMIN_STATE_COLUMNS, 'developer');
    if (before && before.admin && before.email_verified_at !== null && before.disabled_at === null) {
      return { change: 'unchanged', admin: adminAccountOf(before), hostAccessPending: false };
    }
    const hostAccessPending = before !== undefined && before.developer && (before.disabled_at !== null || before.email_verified_at === null);
    if (hostAccessPending) await recordPendingAccess(trx, { userId: before.id }, { reason: 'user.verify' });
    let after: AdminStateRow;
    if (before) {
      // Through the model: its hook sets updated_at.
      await User.query(trx)
        .findById(before.id)
        .patch({ admin: true, email_verified_at: before.email_verified_at ?? trx.fn.now(), disabled_at: null });
      after = (await User.query(trx).findById(before.id).select(...ADMIN_STATE_COLUMNS))!;
    } else {
      const name = request.name?.trim() || email.split('@')[0]!;
      after = await User.query(trx)
        .insert({ name, name_slug: slugifyName(name) || 'gebruiker', email, email_verified_at: trx.fn.now(), admin: true, developer: false })
        .returning([...ADMIN_STATE_COLUMNS]);
    }
    await recordAudit(trx, {
      actorId: null,
      action: 'user.admin',
      subjectType: 'user',
      subjectId: after.id,
      before: before ? adminStateSnapshot(before) : null,
      after: { ...adminStateSnapshot(after), reason: 'cli' },
    });
    return { change: before ? 'promoted' : 'created', admin: adminAccountOf(after), hostAccessPending };
  });
}
