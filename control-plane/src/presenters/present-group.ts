/**
 * One group of GET /api/admin/groups: exactly {id, cohort} (the levels page's selector relies on
 * that shape); `member_count` only when the caller asked for counts (?counts=true, the groups page).
 */
export interface GroupJson {
  id: number;
  cohort: string;
  member_count?: number;
}

export function presentGroup(row: { id: number; cohort: string; member_count?: number | string }): GroupJson {
  const json: GroupJson = { id: row.id, cohort: row.cohort };
  if (row.member_count !== undefined) json.member_count = Number(row.member_count);
  return json;
}
