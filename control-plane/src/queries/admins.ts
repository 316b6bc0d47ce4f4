import type { Knex } from 'knex';
import { User } from '../models/User.ts';

/** An admin as the sysadmin's command line shows it. */
export interface AdminAccount {
  id: number;
  name: string;
  email: string;
  /** False while not activated or while disabled: such an admin cannot use the app. */
  active: boolean;
}

/** The columns that say whether an account is a usable admin. */
export type AdminStateRow = Pick<User, 'id' | 'name' | 'email' | 'admin' | 'email_verified_at' | 'disabled_at'>;

export const ADMIN_STATE_COLUMNS = ['id', 'name', 'email', 'admin', 'email_verified_at', 'disabled_at'] as const;

export function adminAccountOf(row: AdminStateRow): AdminAccount {
  return { id: row.id, name: row.name, email: row.email, active: row.email_verified_at !== null && row.disabled_at === null };
}

/** What an audit entry keeps of an account's admin state, as plain JSON. */
export function adminStateSnapshot(row: AdminStateRow): Record<string, unknown> {
  const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());
  return { name: row.name, email: row.email, admin: Boolean(row.admin), email_verified_at: iso(row.email_verified_at), disabled_at: iso(row.disabled_at) };
}

/** Every admin, by name (case-insensitively), then id. */
export async function listAdmins(knex: Knex): Promise<AdminAccount[]> {
  const rows = await User.query(knex).where({ admin: true }).select(...ADMIN_STATE_COLUMNS).orderByRaw('lower(name), id');
  return rows.map(adminAccountOf);
}
