import type { Knex } from 'knex';
import { type AuditEvent, recordAudit } from '../audit/record-audit.ts';
import { fromRow, PENDING_COLUMNS, type PendingHostAccess, type PendingRow, type PendingSubject } from '../queries/host-access.ts';

/**
 * The intents of pending_host_access (migration 0009): what the dev servers still have to do
 * about someone's access. Recorded before the agents are called, settled after: everything done
 * removes the row, anything left keeps it for the retry job (jobs/host-access-retry.ts).
 */

export interface PendingIntent {
  reason: string;
  /** Added to what an earlier intent of the project still has to end. */
  endSessionsOf?: readonly number[];
  /** The latest intent of a user decides. */
  stopSoleContainers?: boolean;
}

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
    .returning<PendingRow[]>(PENDING_COLUMNS);
  return fromRow(row as PendingRow);
}

/**
 * After a run: with nothing left (`notDone` null) the row goes, unless a newer intent raised its
 * revision meanwhile; otherwise the attempt is counted and what is left is kept.
 */
export async function settlePendingAccess(knex: Knex | Knex.Transaction, pending: Pick<PendingHostAccess, 'id' | 'revision'>, notDone: string | null): Promise<void> {
  if (notDone === null) {
    await knex('pending_host_access').where({ id: pending.id, revision: pending.revision }).delete();
    return;
  }
  await knex('pending_host_access')
    .where({ id: pending.id })
    .update({ attempts: knex.raw('attempts + 1'), not_done: notDone, updated_at: knex.fn.now() });
}

/**
 * Settles the intent and records what the run did in one transaction: a crash or a refused audit
 * row between the two would otherwise clear the intent with nothing saying what was done (the
 * run is then repeated by the retry job, which is harmless: every step is idempotent).
 */
export async function settlePendingAccessWithAudit(
  knex: Knex,
  pending: Pick<PendingHostAccess, 'id' | 'revision'>,
  notDone: string | null,
  audit: AuditEvent | null,
): Promise<void> {
  await knex.transaction(async (trx) => {
    await settlePendingAccess(trx, pending, notDone);
    if (audit) await recordAudit(trx, audit);
  });
}
