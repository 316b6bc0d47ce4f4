import type { Knex } from 'knex';
import type { DeployAuth, DeployFailure, DeployLogLine, DeployStatus, DeployTrigger } from '@devplein/contract/deploys';

type Db = Knex | Knex.Transaction;

/** One project_deploys row as the presenters take it (the requester's name joined in). */
export interface DeployRow {
  id: number;
  project_id: number;
  status: DeployStatus;
  trigger: DeployTrigger;
  branch: string | null;
  commit_hash: string | null;
  commit_subject: string | null;
  commit_author: string | null;
  committed_at: Date | string | null;
  requested_by: number | null;
  requested_by_name: string | null;
  failure: DeployFailure | null;
  message: string | null;
  created_at: Date | string;
  started_at: Date | string | null;
  finished_at: Date | string | null;
}

/** A row with its log (the detail route). */
export interface DeployRowWithLog extends DeployRow {
  log: DeployLogLine[];
}

/** Newest first: at most this many deploys in the panel's history. */
export const DEPLOY_HISTORY_LIMIT = 20;

const COLUMNS = [
  'd.id',
  'd.project_id',
  'd.status',
  'd.trigger',
  'd.branch',
  'd.commit_hash',
  'd.commit_subject',
  'd.commit_author',
  'd.committed_at',
  'd.requested_by',
  'u.name as requested_by_name',
  'd.failure',
  'd.message',
  'd.created_at',
  'd.started_at',
  'd.finished_at',
];

const deploys = (db: Db) => db('project_deploys as d').leftJoin('users as u', 'u.id', 'd.requested_by');

const asRow = <Row extends DeployRow>(row: Row): Row => ({ ...row, id: Number(row.id), project_id: Number(row.project_id), requested_by: row.requested_by === null ? null : Number(row.requested_by) });

/** A project's deploys, newest first (the panel's history). */
export async function loadProjectDeploys(db: Db, projectId: number, limit = DEPLOY_HISTORY_LIMIT): Promise<DeployRow[]> {
  const rows = await deploys(db).where('d.project_id', projectId).orderBy('d.id', 'desc').limit(limit).select<DeployRow[]>(COLUMNS);
  return rows.map(asRow);
}

/** One deploy of a project, with its log; undefined when the project has no such deploy. */
export async function loadProjectDeploy(db: Db, projectId: number, deployId: number): Promise<DeployRowWithLog | undefined> {
  const row = await deploys(db).where({ 'd.project_id': projectId, 'd.id': deployId }).first<DeployRowWithLog | undefined>([...COLUMNS, 'd.log']);
  if (!row) return undefined;
  const log = typeof row.log === 'string' ? (JSON.parse(row.log) as DeployLogLine[]) : row.log;
  return { ...asRow(row), log };
}

/** One deploy by id (the queue's realtime updates). */
export async function loadDeploy(db: Db, deployId: number): Promise<DeployRow | undefined> {
  const row = await deploys(db).where('d.id', deployId).first<DeployRow | undefined>(COLUMNS);
  return row && asRow(row);
}

/**
 * The cards' summaries of these projects in two set-based reads: per project its newest deploy
 * of any status, and its newest 'deployed' one (the commit on the site now).
 */
export async function loadDeploySummaries(db: Db, projectIds: readonly number[]): Promise<Map<number, { latest: DeployRow | null; current: DeployRow | null }>> {
  const result = new Map<number, { latest: DeployRow | null; current: DeployRow | null }>();
  if (projectIds.length === 0) return result;
  const newest = (deployedOnly: boolean) => {
    const query = deploys(db)
      .whereIn('d.project_id', [...projectIds])
      .distinctOn('d.project_id')
      .orderBy([{ column: 'd.project_id' }, { column: 'd.id', order: 'desc' }])
      .select<DeployRow[]>(COLUMNS);
    if (deployedOnly) void query.where('d.status', 'deployed');
    return query;
  };
  const [latest, current] = await Promise.all([newest(false), newest(true)]);
  for (const row of latest.map(asRow)) result.set(row.project_id, { latest: row, current: null });
  for (const row of current.map(asRow)) {
    const entry = result.get(row.project_id) ?? { latest: row, current: null };
    result.set(row.project_id, { ...entry, current: row });
  }
  return result;
}

/** The deploy settings of one project and its image option's target (the queue, the panel, the webhook). */
export interface DeploySettingsRow {
  id: number;
  name: string;
  host: string | null;
  validated: boolean | null;
  repro: string | null;
  deploy_branch: string | null;
  deploy_auth: DeployAuth;
  git_token_sealed: string | null;
  webhook_secret_sealed: string | null;
  deploy_web_root: string | null;
  deploy_after_update: string | null;
  deploy_keep_paths: string[] | null;
  deploy_build_command: string | null;
  deploy_build_output: string | null;
}

export async function loadDeploySettings(db: Db, projectId: number): Promise<DeploySettingsRow | undefined> {
  const row = await db('projects as p')
    .leftJoin('docker_images as di', 'di.id', 'p.docker_image_id')
    .where('p.id', projectId)
    .first<DeploySettingsRow | undefined>(
      'p.id',
      'p.name',
      'p.host',
      'p.validated',
      'p.repro',
      'p.deploy_branch',
      'p.deploy_auth',
      'p.git_token_sealed',
      'p.webhook_secret_sealed',
      'di.deploy_web_root',
      'di.deploy_after_update',
      'di.deploy_keep_paths',
      'di.deploy_build_command',
      'di.deploy_build_output',
    );
  return row && { ...row, id: Number(row.id) };
}
