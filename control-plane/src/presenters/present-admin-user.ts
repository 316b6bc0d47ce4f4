/** A row of the users admin query: the user joined with their group. */
export interface AdminUserRow {
  id: number;
  name: string;
  email: string;
  group_id: number | null;
  cohort: string | null;
  email_verified_at: Date | string | null;
  disabled_at: Date | string | null;
}

/** GET /api/admin/users item, and the answer of PUT /api/admin/users/{id}. */
export interface AdminUserJson {
  id: number;
  name: string;
  email: string;
  group: { id: number; cohort: string } | null;
  /** null: not activated (spec §4). */
  email_verified_at: string | null;
  /** Set: disabled, signed out and unable to sign in until activated again. */
  disabled_at: string | null;
}

const iso = (value: Date | string | null): string | null =>
  value === null ? null : value instanceof Date ? value.toISOString() : new Date(value).toISOString();

export function presentAdminUser(row: AdminUserRow): AdminUserJson {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    group: row.group_id !== null && row.cohort !== null ? { id: row.group_id, cohort: row.cohort } : null,
    email_verified_at: iso(row.email_verified_at),
    disabled_at: iso(row.disabled_at),
  };
}
