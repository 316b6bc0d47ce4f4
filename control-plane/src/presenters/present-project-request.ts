/** GET /api/admin/projects (for now): a project awaiting approval, as the profile's counter needs it. */
export interface ProjectRequestJson {
  id: number;
  name: string;
  domain: string;
  created_at: string;
}

export function presentProjectRequest(row: { id: number; name: string; domain: string; created_at: Date | string }): ProjectRequestJson {
  return {
    id: row.id,
    name: row.name,
    domain: row.domain,
    created_at: row.created_at instanceof Date ? row.created_at.toISOString() : new Date(row.created_at).toISOString(),
  };
}
