import type { TeamSummaryJson, MemberJson } from '@devplein/contract/users';
import type { MemberRow } from '../queries/teams.ts';
export type { TeamSummaryJson, MemberJson };

export function presentTeamSummary(row: { id: number; name: string; member_count: number | string }): TeamSummaryJson {
  return { id: row.id, name: row.name, member_count: Number(row.member_count) };
}

export function presentMember(row: MemberRow): MemberJson {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    group: row.group_id !== null && row.cohort !== null ? { id: row.group_id, cohort: row.cohort } : null,
  };
}
