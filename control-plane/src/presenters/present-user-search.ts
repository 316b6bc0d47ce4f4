import type { UserSearchHitJson } from '@devplein/contract/users';
import type { UserSearchRow } from '../queries/users.ts';
export type { UserSearchHitJson };

export function presentUserSearchHit(row: UserSearchRow, forAdmin: boolean): UserSearchHitJson {
  if (!forAdmin) return { id: row.id, name: row.name };
  return {
    id: row.id,
    name: row.name,
    group: row.group_id !== null && row.cohort !== null ? { id: row.group_id, cohort: row.cohort } : null,
    active: row.email_verified_at !== null && row.disabled_at === null,
  };
}
