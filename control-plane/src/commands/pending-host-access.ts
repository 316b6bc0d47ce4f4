import type { Knex } from 'knex';

/**
 * The intents of pending_host_access (migration 0009): what the dev servers still have to do
 * about someone's access. Recorded before the agents are called, settled after: everything done
 * removes the row, anything left keeps it for the retry job (jobs/host-access-retry.ts).
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

export interface PendingIntent {
  reason: string;
  /** Added to what an earlier intent of the project still has to end. */
  endSessionsOf?: readonly number[];
  /** The latest intent of a user decides. */
  stopSoleContainers?: boolean;
}

type Row = Omit<PendingHostAccess, 'end_sessions_of'> & { end_sessions_of: number[] | string };

function fromRow(row: Row): PendingHostAccess {
  const ids = typeof row.end_sessions_of === 'string' ? (JSON.parse(row.end_sessions_of) as number[]) : row.end_sessions_of;
  return {
    ...row,
    id: Number(row.id),
    user_id: row.user_id === null ? null : Number(row.user_id),
    project_id: row.project_id === null ? null : Number(row.project_id),
    end_sessions_of: ids.map(Number),
  };
}

const COLUMNS = ['id', 'user_id', 'project_id', 'end_sessions_of', 'stop_sole_containers', 'reason', 'revision', 'attempts', 'not_done'];

/**
 * Records an intent (or adds to the one already there: the former members to end sessions of
 * are joined, the revision goes up so a run that started earlier leaves the row alone).
 */
export async function recordPendingAccess(knex: Knex, subject: PendingSubject, intent: PendingIntent): Promise<PendingHostAccess> {
  const column = 'userId' in subject ? 'user_id' : 'project_id';
  const endSessionsOf = JSON.stringify([...new Set(intent.endSessionsOf ?? [])]);
  const [row] = await knex('pending_host_access')
    .insert({
      [column]: 'userId' in subject ? subject.userId : subject.projectId,
      reason: intent.reason,
      end_sessions_of: endSessionsOf,
      stop_sole_containers: intent.stopSoleContainers ?? false,
    })
    .onConflict(column)
    .merge({
      reason: intent.reason,
      revision: knex.raw('pending_host_access.revision + 1'),
      stop_sole_containers: intent.stopSoleContainers ?? knex.raw('pending_host_access.stop_sole_containers'),
      end_sessions_of: knex.raw(
        "(select coalesce(jsonb_agg(distinct element.value), '[]'::jsonb) from jsonb_array_elements(pending_host_access.end_sessions_of || excluded.end_sessions_of) as element)",
      ),
      updated_at: knex.fn.now(),
    })
    .returning<Row[]>(COLUMNS);
  return fromRow(row as Row);
}

/**
 * After a run: with nothing left (`notDone` null) the row goes, unless a newer intent raised its
 * revision meanwhile; otherwise the attempt is counted and what is left is kept.
 */
export async function settlePendingAccess(knex: Knex, pending: Pick<PendingHostAccess, 'id' | 'revision'>, notDone: string | null): Promise<void> {
  if (notDone === null) {
    await knex('pending_host_access').where({ id: pending.id, revision: pending.revision }).delete();
    return;
  }
  await knex('pending_host_access')
    .where({ id: pending.id })
    .update({ attempts: knex.raw('attempts + 1'), not_done: notDone, updated_at: knex.fn.now() });
}

/** The oldest intents first (the retry job's work list). */
export async function pendingAccessRows(knex: Knex, limit = 100): Promise<PendingHostAccess[]> {
  const rows = await knex('pending_host_access').orderBy('updated_at').orderBy('id').limit(limit).select<Row[]>(COLUMNS);
  return rows.map(fromRow);
}

/** A user's pending intent, if any (the users admin shows what is not done yet). */
export async function pendingAccessOf(knex: Knex, userId: number): Promise<PendingHostAccess | undefined> {
  const row = await knex('pending_host_access').where({ user_id: userId }).first<Row | undefined>(COLUMNS);
  return row ? fromRow(row) : undefined;
}
