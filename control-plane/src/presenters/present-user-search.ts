/**
 * A hit of POST /api/users/search: id and name for everyone (spec §7 "users with id and name");
 * admins also get the cohort (`group`) and whether the account is active.
 */
export interface UserSearchHitJson {
  id: number;
  name: string;
  group?: { id: number; cohort: string } | null;
  active?: boolean;
}

export interface UserSearchRow {
  id: number;
  name: string;
  group_id: number | null;
  cohort: string | null;
  email_verified_at: Date | string | null;
  disabled_at: Date | string | null;
}

export function presentUserSearchHit(row: UserSearchRow, forAdmin: boolean): UserSearchHitJson {
  if (!forAdmin) return { id: row.id, name: row.name };
  return {
    id: row.id,
    name: row.name,
    group: row.group_id !== null && row.cohort !== null ? { id: row.group_id, cohort: row.cohort } : null,
    active: row.email_verified_at !== null && row.disabled_at === null,
  };
}
