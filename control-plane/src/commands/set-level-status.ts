import type { Knex } from 'knex';
import type { LevelStatus } from '@devplein/contract/levels';
import { Level } from '../models/Level.ts';
import { recordAudit } from '../audit/record-audit.ts';

/**
 * Sets one student level's status (POST /api/level/update-status) and records 'level.status'
 * (before/after) in the same transaction; undefined when the level does not exist.
 */
export async function setLevelStatus(knex: Knex, levelId: number, status: LevelStatus, actorId: number | null): Promise<LevelStatus | undefined> {
  return knex.transaction(async (trx) => {
    const before = await Level.query(trx).select('status').findById(levelId).forUpdate();
    if (!before) return undefined;
    await Level.query(trx).patch({ status }).where({ id: levelId });
    await recordAudit(trx, {
      actorId,
      action: 'level.status',
      subjectType: 'level',
      subjectId: levelId,
      before: { status: before.status },
      after: { status },
    });
    return status;
  });
}
