import type { Knex } from 'knex';
import { LevelContent } from '../models/LevelContent.ts';
import { recordAudit } from '../audit/record-audit.ts';

/** Adds level content and records 'level-content.create' in the same transaction; returns its id. */
export async function createLevelContent(
  knex: Knex,
  values: { title: string; title_for_teachers: string | null; level_category_id: number },
  actorId: number | null,
): Promise<number> {
  return knex.transaction(async (trx) => {
    const row = await LevelContent.query(trx).insert(values).returning('id');
    await recordAudit(trx, {
      actorId,
      action: 'level-content.create',
      subjectType: 'level-content',
      subjectId: row.id,
      after: values,
    });
    return row.id;
  });
}
