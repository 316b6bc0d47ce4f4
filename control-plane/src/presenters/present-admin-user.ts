import type { AdminUserJson } from '@devplein/contract/users';
import type { AdminUserRow } from '../queries/users.ts';
export type { AdminUserJson };

const iso = (value: Date | string | null): string | null =>
  value === null ? null : value instanceof Date ? value.toISOString() : new Date(value).toISOString();

/**
 * One user as the users admin sees them. `accessNotDone` is what the access change of this very
 * request could not do (PUT answers); without it, what the row says is pending.
 */
export function presentAdminUser(row: AdminUserRow, accessNotDone?: string | null): AdminUserJson {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    group: row.group_id !== null && row.cohort !== null ? { id: row.group_id, cohort: row.cohort } : null,
    email_verified_at: iso(row.email_verified_at),
    disabled_at: iso(row.disabled_at),
    developer: Boolean(row.developer),
    access_not_done: accessNotDone === undefined ? row.access_not_done : accessNotDone,
  };
}
