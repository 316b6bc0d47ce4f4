import type { Knex } from 'knex';

/**
 * Reads of pending_host_access (migration 0009): what the dev servers still have to do about
 * someone's access. The writes (record, settle) are commands/pending-host-access.ts.
 */

/** Whose access: a user's (recomputed from their flags) or a project container's. */
export type PendingSubject = { userId: number } | { projectId: number };

export interface PendingHostAccess {
  id: number;
  user_id: number | null;
  project_id: number | null;
  /** Project rows: former members whose SSH sessions still have to end. */
  end_sessions_of: number[];
  stop_sole_containers: boolean;
  reason: string;
  revision: number;
  attempts: number;
  not_done: string | null;
}

export type PendingRow = Omit<PendingHostAccess, 'end_sessions_of'> & { end_sessions_of: number[] | string };

export function fromRow(row: PendingRow): PendingHostAccess {
  const ids = typeof row.end_sessions_of === 'string' ? (JSON.parse(row.end_sessions_of) as number[]) : row.end_sessions_of;
  return {
    ...row,
    id: Number(row.id),
    user_id: row.user_id === null ? null : Number(row.user_id),
    project_id: row.project_id === null ? null : Number(row.project_id),
    end_sessions_of: ids.map(Number),
  };
}

export const PENDING_COLUMNS = ['id', 'user_id', 'project_id', 'end_sessions_of', 'stop_sole_containers', 'reason', 'revision', 'attempts', 'not_done'];

/** The oldest intents first (the retry job's work list). */
export async function pendingAccessRows(knex: Knex, limit = 100): Promise<PendingHostAccess[]> {
  const rows = await knex('pending_host_access').orderBy('updated_at').orderBy('id').limit(limit).select<PendingRow[]>(PENDING_COLUMNS);
  return rows.map(fromRow);
}

/**
 * Whether an intent the retry job read is still there: a request may have carried it out (and
 * cleared it) while the job waited for that request's run.
 */
export async function isStillPending(knex: Knex, pendingId: number): Promise<boolean> {
  return (await knex('pending_host_access').where({ id: pendingId }).first('id')) !== undefined;
}
