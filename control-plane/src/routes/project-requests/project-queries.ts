import type { Knex } from 'knex';
import type { ProjectMemberRow, ProjectRow } from '../../presenters/present-project.ts';

type Filter = (query: Knex.QueryBuilder) => void;

/**
 * Projects with their image name and members (in entered order) in one query; `filter` narrows
 * the projects (its columns are on alias `p`).
 */
export async function loadProjects(db: Knex | Knex.Transaction, filter: Filter): Promise<ProjectRow[]> {
  const query = db('projects as p')
    .leftJoin('docker_images as di', 'di.id', 'p.docker_image_id')
    .select(
      'p.id',
      'p.name',
      'p.description',
      'p.domain',
      'p.host',
      'p.visible',
      'p.repro',
      'p.end_date',
      'p.docker_image_id',
      'di.name as docker_name',
      'p.validated',
      'p.created_at',
      db.raw(
        `coalesce((select json_agg(json_build_object('id', u.id, 'name', u.name, 'group_id', g.id, 'cohort', g.cohort)
             order by pu.position, u.id)
           from project_user pu join users u on u.id = pu.user_id left join groups g on g.id = u.group_id
           where pu.project_id = p.id), '[]'::json) as users`,
      ),
    )
    .orderBy([{ column: 'p.created_at' }, { column: 'p.id' }]);
  filter(query);
  const rows = (await query) as Array<Omit<ProjectRow, 'users'> & { users: ProjectMemberRow[] | string }>;
  return rows.map((row) => ({
    ...row,
    users: typeof row.users === 'string' ? (JSON.parse(row.users) as ProjectMemberRow[]) : row.users,
  }));
}

export async function loadProject(db: Knex | Knex.Transaction, id: number): Promise<ProjectRow | undefined> {
  const [row] = await loadProjects(db, (query) => void query.where('p.id', id));
  return row;
}

/** Ids of a project's members. */
export async function memberIdsOf(db: Knex | Knex.Transaction, projectId: number): Promise<number[]> {
  const rows = await db('project_user').where('project_id', projectId).select<{ user_id: number }[]>('user_id');
  return rows.map((row) => Number(row.user_id));
}

/** Postgres unique violation: which constraint, if any. */
export function uniqueViolationOf(error: unknown): string | null {
  if (typeof error !== 'object' || error === null || (error as { code?: unknown }).code !== '23505') return null;
  const constraint = (error as { constraint?: unknown }).constraint;
  return typeof constraint === 'string' ? constraint : '';
}

/** A snapshot of a project for the audit trail. */
export const auditSnapshot = (row: ProjectRow): Record<string, unknown> => ({
  name: row.name,
  domain: row.domain,
  docker_image_id: row.docker_image_id,
  description: row.description,
  visible: row.visible,
  repro: row.repro,
  end_date: row.end_date,
  validated: row.validated,
  members: row.users.map((user) => user.id),
});
