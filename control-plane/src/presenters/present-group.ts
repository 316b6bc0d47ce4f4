import type { GroupJson } from '@devplein/contract/users';
export type { GroupJson };


export function presentGroup(row: { id: number; cohort: string; member_count?: number | string }): GroupJson {
  const json: GroupJson = { id: row.id, cohort: row.cohort };
  if (row.member_count !== undefined) json.member_count = Number(row.member_count);
  return json;
}
