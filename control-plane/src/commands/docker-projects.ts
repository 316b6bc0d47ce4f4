import type { Knex } from 'knex';

/** A project as the container routes need it: the row, its image option and its members in order. */
export interface DockerProjectRow {
  id: number;
  name: string;
  description: string;
  domain: string;
  /** The dev server (agent link name) of its container; null is the first one. */
  host: string | null;
  validated: boolean | null;
  docker_image_id: number | null;
  /** The image option's reference, null without an option. */
  image: string | null;
  ssh: boolean;
  wordpress: boolean;
  /** The image option's Linux capabilities (what its containers get back after dropping all); [] without an option. */
  capabilities: string[];
  created_at: Date | string;
  users: Array<{ id: number; name: string }>;
}

type Filter = (query: Knex.QueryBuilder) => void;

/** Projects with image option and members in one query; `filter` narrows (columns on alias `p`). Newest first. */
export async function loadDockerProjects(db: Knex | Knex.Transaction, filter: Filter): Promise<DockerProjectRow[]> {
  const query = db('projects as p')
    .leftJoin('docker_images as di', 'di.id', 'p.docker_image_id')
    .select(
      'p.id',
      'p.name',
      'p.description',
      'p.domain',
      'p.host',
      'p.validated',
      'p.docker_image_id',
      'p.created_at',
      'di.image as image',
      db.raw('coalesce(di.ssh, false) as ssh'),
      db.raw('coalesce(di.wordpress, false) as wordpress'),
      db.raw("coalesce(di.capabilities, '{}'::text[]) as capabilities"),
      db.raw(
        `coalesce((select json_agg(json_build_object('id', u.id, 'name', u.name) order by pu.position, u.id)
           from project_user pu join users u on u.id = pu.user_id where pu.project_id = p.id), '[]'::json) as users`,
      ),
    )
    .orderBy([{ column: 'p.created_at', order: 'desc' }, { column: 'p.id', order: 'desc' }]);
  filter(query);
  const rows = (await query) as Array<Omit<DockerProjectRow, 'users'> & { users: DockerProjectRow['users'] | string }>;
  return rows.map((row) => ({
    ...row,
    id: Number(row.id),
    docker_image_id: row.docker_image_id === null ? null : Number(row.docker_image_id),
    ssh: Boolean(row.ssh),
    wordpress: Boolean(row.wordpress),
    capabilities: [...row.capabilities],
    users: (typeof row.users === 'string' ? (JSON.parse(row.users) as DockerProjectRow['users']) : row.users).map((user) => ({
      id: Number(user.id),
      name: user.name,
    })),
  }));
}

export async function loadDockerProject(db: Knex | Knex.Transaction, id: number): Promise<DockerProjectRow | undefined> {
  const [row] = await loadDockerProjects(db, (query) => void query.where('p.id', id));
  return row;
}

export async function loadDockerProjectByName(db: Knex | Knex.Transaction, name: string): Promise<DockerProjectRow | undefined> {
  const [row] = await loadDockerProjects(db, (query) => void query.where('p.name', name));
  return row;
}

/** The projects the user is a member of (the dockers page), newest first. */
export function loadMemberDockerProjects(db: Knex | Knex.Transaction, userId: number): Promise<DockerProjectRow[]> {
  return loadDockerProjects(db, (query) => void query.whereIn('p.id', db('project_user').select('project_id').where('user_id', userId)));
}

/**
 * SSH public keys of these users that may log in (the union of a project's members' keys):
 * only of developers whose account is activated and not disabled (spec §6: SSH keys are for
 * developers). Every write of a container's keys goes through here, so a disabled user's or a
 * non-developer's keys never reach a container: not at creation, not at any later sync.
 */
export async function sshKeysOf(db: Knex | Knex.Transaction, userIds: number[]): Promise<Array<{ publicKey: string; userId: number }>> {
  if (userIds.length === 0) return [];
  const rows = await db('ssh_keys as k')
    .join('users as u', 'u.id', 'k.user_id')
    .whereIn('k.user_id', userIds)
    .where('u.developer', true)
    .whereNotNull('u.email_verified_at')
    .whereNull('u.disabled_at')
    .orderBy(['k.user_id', 'k.id'])
    .select<{ user_id: number; public_key: string }[]>('k.user_id', 'k.public_key');
  return rows.map((row) => ({ publicKey: row.public_key, userId: Number(row.user_id) }));
}

/**
 * Whether the project may have a container on the host: it is approved now, or it was approved
 * (or adopted) once — a student's edit puts an approved project back to awaiting approval
 * while its container stays. Only such projects need the agent before they are deleted.
 */
export async function mayHaveContainer(db: Knex | Knex.Transaction, project: { id: number; validated: boolean | null }): Promise<boolean> {
  if (project.validated === true) return true;
  const approvedOnce = await db('audit_log')
    .where({ subject_type: 'project', subject_id: String(project.id) })
    .whereIn('action', ['project.approve', 'container.adopt'])
    .first('id');
  return approvedOnce !== undefined;
}
