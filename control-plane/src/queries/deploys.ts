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

/** A card's deploy summary as read: the newest deploy, the one online, and what the card must say. */
export interface DeploySummaryRow {
  latest: DeployRow | null;
  current: DeployRow | null;
  /** Signs in with a token, but none is stored (dropped: the card asks for it again). */
  tokenMissing: boolean;
  webhookNotice: { reason: 'member-left'; since: Date | string } | null;
}

/**
 * The cards' summaries of these projects in three set-based reads: per project its newest deploy
 * of any status, its newest 'deployed' one (the commit on the site now), and its notices.
 */
export async function loadDeploySummaries(db: Db, projectIds: readonly number[]): Promise<Map<number, DeploySummaryRow>> {
  const result = new Map<number, DeploySummaryRow>();
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
  const notices = db('projects as p')
    .leftJoin('project_git_tokens as t', 't.project_id', 'p.id')
    .whereIn('p.id', [...projectIds])
    .select<Array<{ id: number; token_missing: boolean; webhook_secret_notice: 'member-left' | null; webhook_secret_notice_since: Date | string | null }>>(
      'p.id',
      db.raw("(p.deploy_auth = 'token' and t.project_id is null) as token_missing"),
      'p.webhook_secret_notice',
      'p.webhook_secret_notice_since',
    );
  const [latest, current, notes] = await Promise.all([newest(false), newest(true), notices]);
  const entry = (projectId: number): DeploySummaryRow => {
    const found = result.get(projectId) ?? { latest: null, current: null, tokenMissing: false, webhookNotice: null };
    result.set(projectId, found);
    return found;
  };
  for (const row of latest.map(asRow)) entry(row.project_id).latest = row;
  for (const row of current.map(asRow)) entry(row.project_id).current = row;
  for (const note of notes) {
    const found = entry(Number(note.id));
    found.tokenMissing = Boolean(note.token_missing);
    found.webhookNotice = note.webhook_secret_notice && note.webhook_secret_notice_since ? { reason: note.webhook_secret_notice, since: note.webhook_secret_notice_since } : null;
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
  /** The stored HTTPS token (project_git_tokens, migration 0019), sealed; null: none. */
  git_token_sealed: string | null;
  /** The address it was stored for (lib/git-credential.ts). */
  git_token_address: string | null;
  /** Who stored it, and when. */
  git_token_user_id: number | null;
  git_token_user_name: string | null;
  git_token_created_at: Date | string | null;
  webhook_secret_sealed: string | null;
  /** Why the webhook secret was renewed without the members asking; null: no banner. */
  webhook_secret_notice: 'member-left' | null;
  webhook_secret_notice_since: Date | string | null;
  deploy_web_root: string | null;
  deploy_after_update: string | null;
  deploy_keep_paths: string[] | null;
  deploy_build_command: string | null;
  deploy_build_output: string | null;
}

export async function loadDeploySettings(db: Db, projectId: number): Promise<DeploySettingsRow | undefined> {
  const row = await db('projects as p')
    .leftJoin('docker_images as di', 'di.id', 'p.docker_image_id')
    .leftJoin('project_git_tokens as t', 't.project_id', 'p.id')
    .leftJoin('users as tu', 'tu.id', 't.user_id')
    .where('p.id', projectId)
    .first<DeploySettingsRow | undefined>(
      'p.id',
      'p.name',
      'p.host',
      'p.validated',
      'p.repro',
      'p.deploy_branch',
      'p.deploy_auth',
      't.token_sealed as git_token_sealed',
      't.address as git_token_address',
      't.user_id as git_token_user_id',
      'tu.name as git_token_user_name',
      't.created_at as git_token_created_at',
      'p.webhook_secret_sealed',
      'p.webhook_secret_notice',
      'p.webhook_secret_notice_since',
      'di.deploy_web_root',
      'di.deploy_after_update',
      'di.deploy_keep_paths',
      'di.deploy_build_command',
      'di.deploy_build_output',
    );
  return row && { ...row, id: Number(row.id), git_token_user_id: row.git_token_user_id === null ? null : Number(row.git_token_user_id) };
}
