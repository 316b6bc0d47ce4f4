import type { Knex } from 'knex';
import type { FieldErrors } from '../errors.ts';
import { DOMAIN_TAKEN, NAME_TAKEN } from './project-request-errors.ts';
import type { ProjectRequestData } from '@devplein/contract/validation/projectRequest';

export interface ProjectMemberRow {
  id: number;
  name: string;
  group_id: number | null;
  cohort: string | null;
}

/** A project row as loadProjects() reads it: the project, its image name and its members in order. */
export interface ProjectRow {
  id: number;
  name: string;
  description: string;
  domain: string;
  /** The dev server of its container (agent link name); null is the first one. */
  host: string | null;
  visible: boolean;
  repro: string | null;
  /** The branch git deploy takes (projects.deploy_branch); null: the default branch. */
  branch: string | null;
  end_date: string | Date | null;
  docker_image_id: number | null;
  docker_name: string | null;
  validated: boolean | null;
  created_at: Date | string;
  users: ProjectMemberRow[];
  /** The stored HTTPS token's owner (issue 35); null: none stored. */
  deploy_token: { stored_by: { id: number; name: string } } | null;
}

type Db = Knex | Knex.Transaction;
type Filter = (query: Knex.QueryBuilder) => void;

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
  /** The git clone address (the form's 'repro'); null: none. */
  repro: string | null;
  /** The branch git deploy takes; null: the repository's default branch. */
  branch: string | null;
  /** The image option's web root for git deploys (migration 0017); null: git deploy not offered. */
  webRoot: string | null;
}

/** What the one project query reads: the request form's fields and the container's image option. */
type ProjectQueryRow = Omit<ProjectRow, 'users' | 'deploy_token'> & { deploy_token: ProjectRow['deploy_token'] | string } &
  Pick<DockerProjectRow, 'image' | 'ssh' | 'wordpress' | 'capabilities'> & { users: ProjectMemberRow[] | string; web_root: string | null };

/** Oldest first (the approvals screen, the request form) or newest first (the dockers pages). */
type Order = 'oldest' | 'newest';

/**
 * THE project query: projects with their image option and members (in entered order, with
 * their group) in one round trip; `filter` narrows the projects (its columns are on alias `p`).
 * Both the request routes and the container routes read projects through here.
 */
async function queryProjects(db: Db, order: Order, filter: Filter): Promise<ProjectQueryRow[]> {
  const direction = order === 'oldest' ? 'asc' : 'desc';
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
      'p.deploy_branch as branch',
      'di.deploy_web_root as web_root',
      'p.end_date',
      'p.docker_image_id',
      'di.name as docker_name',
      'p.validated',
      'p.created_at',
      'di.image as image',
      db.raw('coalesce(di.ssh, false) as ssh'),
      db.raw('coalesce(di.wordpress, false) as wordpress'),
      db.raw("coalesce(di.capabilities, '{}'::text[]) as capabilities"),
      // The HTTPS token git deploys sign in with (issue 35): who stored it, never the token.
      db.raw(
        `(select json_build_object('stored_by', json_build_object('id', tu.id, 'name', tu.name))
           from project_git_tokens t join users tu on tu.id = t.user_id where t.project_id = p.id) as deploy_token`,
      ),
      db.raw(
        `coalesce((select json_agg(json_build_object('id', u.id, 'name', u.name, 'group_id', g.id, 'cohort', g.cohort)
             order by pu.position, u.id)
           from project_user pu join users u on u.id = pu.user_id left join groups g on g.id = u.group_id
           where pu.project_id = p.id), '[]'::json) as users`,
      ),
    )
    .orderBy([
      { column: 'p.created_at', order: direction },
      { column: 'p.id', order: direction },
    ]);
  filter(query);
  return (await query) as ProjectQueryRow[];
}

const membersOf = (row: ProjectQueryRow): ProjectMemberRow[] =>
  typeof row.users === 'string' ? (JSON.parse(row.users) as ProjectMemberRow[]) : row.users;

/** The request form's view of a project (presentProject's input). */
const asProjectRow = (row: ProjectQueryRow): ProjectRow => ({
  id: row.id,
  name: row.name,
  description: row.description,
  domain: row.domain,
  host: row.host,
  visible: row.visible,
  repro: row.repro,
  branch: row.branch,
  end_date: row.end_date,
  docker_image_id: row.docker_image_id,
  docker_name: row.docker_name,
  validated: row.validated,
  created_at: row.created_at,
  users: membersOf(row),
  deploy_token: typeof row.deploy_token === 'string' ? (JSON.parse(row.deploy_token) as ProjectRow['deploy_token']) : row.deploy_token,
});

/** The container routes' view of a project. */
const asDockerProjectRow = (row: ProjectQueryRow): DockerProjectRow => ({
  id: Number(row.id),
  name: row.name,
  description: row.description,
  domain: row.domain,
  host: row.host,
  validated: row.validated,
  docker_image_id: row.docker_image_id === null ? null : Number(row.docker_image_id),
  image: row.image,
  ssh: Boolean(row.ssh),
  wordpress: Boolean(row.wordpress),
  capabilities: [...row.capabilities],
  created_at: row.created_at,
  users: membersOf(row).map((user) => ({ id: Number(user.id), name: user.name })),
  repro: row.repro,
  branch: row.branch,
  webRoot: row.web_root,
});

/** Requests awaiting approval, oldest first (the approvals screen). */
export async function loadAwaitingProjects(db: Db): Promise<ProjectRow[]> {
  return (await queryProjects(db, 'oldest', (query) => void query.whereNull('p.validated'))).map(asProjectRow);
}

/** All approved projects by name (the approvals screen with ?all=true). */
export async function loadApprovedProjects(db: Db): Promise<ProjectRow[]> {
  const rows = await queryProjects(db, 'oldest', (query) => void query.where('p.validated', true).clearOrder().orderBy('p.name'));
  return rows.map(asProjectRow);
}

export async function loadProject(db: Db, id: number): Promise<ProjectRow | undefined> {
  const [row] = await queryProjects(db, 'oldest', (query) => void query.where('p.id', id));
  return row === undefined ? undefined : asProjectRow(row);
}

/** Projects with image option and members; `filter` narrows (columns on alias `p`). Newest first. */
export async function loadDockerProjects(db: Db, filter: Filter): Promise<DockerProjectRow[]> {
  return (await queryProjects(db, 'newest', filter)).map(asDockerProjectRow);
}

export async function loadDockerProject(db: Db, id: number): Promise<DockerProjectRow | undefined> {
  const [row] = await loadDockerProjects(db, (query) => void query.where('p.id', id));
  return row;
}

export async function loadDockerProjectByName(db: Db, name: string): Promise<DockerProjectRow | undefined> {
  const [row] = await loadDockerProjects(db, (query) => void query.where('p.name', name));
  return row;
}

/** The projects the user is a member of (the dockers page), newest first. */
export function loadMemberDockerProjects(db: Db, userId: number): Promise<DockerProjectRow[]> {
  return loadDockerProjects(db, (query) => void query.whereIn('p.id', db('project_user').select('project_id').where('user_id', userId)));
}

/**
 * SSH public keys of these users that may log in (the union of a project's members' keys):
 * only of developers whose account is activated and not disabled (spec §6: SSH keys are for
 * developers). Every write of a container's keys goes through here, so a disabled user's or a
 * non-developer's keys never reach a container: not at creation, not at any later sync.
 */
export async function sshKeysOf(db: Db, userIds: number[]): Promise<Array<{ publicKey: string; userId: number }>> {
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
export async function mayHaveContainer(db: Db, project: { id: number; validated: boolean | null }): Promise<boolean> {
  if (project.validated === true) return true;
  const approvedOnce = await db('audit_log')
    .where({ subject_type: 'project', subject_id: String(project.id) })
    .whereIn('action', ['project.approve', 'container.adopt'])
    .first('id');
  return approvedOnce !== undefined;
}

/**
 * The projects that count against a student's quota: the ones they requested and are still a
 * member of. Being added to others' projects uses none of it; a request they were taken off is
 * no longer theirs to delete, so it stops counting too.
 */
export async function requestedProjectCount(db: Db, userId: number): Promise<number> {
  const row = await db('projects as p')
    .join('project_user as pu', function joinMember() {
      this.on('pu.project_id', 'p.id').andOn('pu.user_id', 'p.created_by');
    })
    .where('p.created_by', userId)
    .count<{ count: string | number }[]>('* as count')
    .first();
  return Number(row?.count ?? 0);
}

/**
 * The checks of a project request that need the database: the image exists, the members exist
 * and are activated, name and domain are free (apart from the project itself `ownId`). All
 * problems at once, per field (empty: none).
 */
export async function projectRequestProblems(db: Db, input: ProjectRequestData, memberIds: number[], ownId: number | null): Promise<FieldErrors> {
  const errors: FieldErrors = {};
  const image = await db('docker_images').where('id', input.docker_id).first('id');
  if (!image) errors.docker_id = ['Deze image bestaat niet. Kies een image uit de lijst.'];

  const found = await db('users')
    .whereIn('id', memberIds)
    .whereNotNull('email_verified_at')
    .whereNull('disabled_at')
    .select<{ id: number }[]>('id');
  const active = new Set(found.map((row) => Number(row.id)));
  const missing = memberIds.filter((id) => !active.has(id));
  if (missing.length > 0) {
    errors.users = missing.map((id) => `Gebruiker ${id} bestaat niet of is niet geactiveerd.`);
  }

  const sameName = await db('projects').where('name', input.name).modify((q) => void (ownId !== null && q.whereNot('id', ownId))).first('id');
  if (sameName) errors.name = [NAME_TAKEN];
  const sameDomain = await db('projects').where('domain', input.domain).modify((q) => void (ownId !== null && q.whereNot('id', ownId))).first('id');
  if (sameDomain) errors.domain = [DOMAIN_TAKEN];
  return errors;
}

/** A snapshot of a project for the audit trail. */
export const auditSnapshot = (row: ProjectRow): Record<string, unknown> => ({
  name: row.name,
  domain: row.domain,
  docker_image_id: row.docker_image_id,
  description: row.description,
  visible: row.visible,
  repro: row.repro,
  branch: row.branch,
  end_date: row.end_date,
  validated: row.validated,
  members: row.users.map((user) => user.id),
});
