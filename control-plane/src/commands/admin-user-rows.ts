import type { Knex } from 'knex';
import type { AdminUserRow } from '../presenters/present-admin-user.ts';

/**
 * The users admin's view of users: one query, each user joined with their group and what is
 * not done yet of their host access (no N+1 for 400 users). Ordered by name, case-insensitively.
 */
export function adminUserRows(db: Knex | Knex.Transaction): Knex.QueryBuilder<AdminUserRow, AdminUserRow[]> {
  return db<AdminUserRow, AdminUserRow[]>('users as u')
    .leftJoin('groups as g', 'g.id', 'u.group_id')
    .leftJoin('pending_host_access as pa', 'pa.user_id', 'u.id')
    .select('u.id', 'u.name', 'u.email', 'u.group_id', 'g.cohort', 'u.email_verified_at', 'u.disabled_at', 'u.developer', 'pa.not_done as access_not_done')
    .orderByRaw('lower(u.name), u.id');
}

/** One user as the users admin sees them, locked for the rest of the transaction; undefined when unknown. */
export async function lockAdminUserRow(trx: Knex.Transaction, id: number): Promise<AdminUserRow | undefined> {
  await trx('users').where({ id }).forUpdate().first('id');
  return adminUserRows(trx).where('u.id', id).first();
}

/** The audit snapshot of an account: what the admin sees and changes, as plain JSON. */
export function accountSnapshot(row: AdminUserRow): Record<string, unknown> {
  const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());
  return {
    name: row.name,
    email: row.email,
    cohort: row.cohort,
    email_verified_at: iso(row.email_verified_at),
    disabled_at: iso(row.disabled_at),
    developer: Boolean(row.developer),
  };
}
