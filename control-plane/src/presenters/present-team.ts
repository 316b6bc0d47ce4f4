/** A team button on the teams page: GET /api/admin/teams. */
export interface TeamSummaryJson {
  id: number;
  name: string;
  member_count: number;
}

/** One member row: GET/PUT /api/admin/teams/{id} (and the groups page's members). */
export interface MemberJson {
  id: number;
  name: string;
  email: string;
  group: { id: number; cohort: string } | null;
}

export interface MemberRow {
  id: number;
  name: string;
  email: string;
  group_id: number | null;
  cohort: string | null;
}

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
