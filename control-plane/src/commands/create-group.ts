import type { Knex } from 'knex';
import { recordAudit } from '../audit/record-audit.ts';
import { validationFailed } from '../errors.ts';
import { Group } from '../models/Group.ts';

/**
 * Creates a group (cohort, already in capitals) with its audit entry (group.create).
 * An existing cohort (case-insensitively) → 422 on `cohort`. Answers the new group.
 */
export async function createGroup(knex: Knex, actorId: number | null, cohort: string): Promise<{ id: number; cohort: string }> {
  return knex.transaction(async (trx) => {
    // Serialises creation: the unique check below cannot race another admin's insert.
    await trx.raw('LOCK TABLE groups IN SHARE ROW EXCLUSIVE MODE');
    const existing = await Group.query(trx).whereRaw('upper(cohort) = ?', [cohort]).first().select('id');
    if (existing) throw validationFailed({ cohort: ['Deze klas bestaat al.'] });
    const group = await Group.query(trx).insert({ cohort });
    await recordAudit(trx, { actorId, action: 'group.create', subjectType: 'group', subjectId: group.id, after: { cohort: group.cohort } });
    return { id: group.id, cohort: group.cohort };
  });
}
