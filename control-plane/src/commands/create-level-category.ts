import type { Knex } from 'knex';
import { LevelCategory } from '../models/LevelCategory.ts';
import { recordAudit } from '../audit/record-audit.ts';

const COLUMNS = ['id', 'title', 'number', 'icons'];

/** Adds a level category and records 'level-category.create' in the same transaction. */
export async function createLevelCategory(
  knex: Knex,
  values: { title: string; number: number; icons: boolean },
  actorId: number | null,
): Promise<LevelCategory> {
  return knex.transaction(async (trx) => {
    const created = await LevelCategory.query(trx)
      .insert({ title: values.title, number: values.number, icons: values.icons })
      .returning(COLUMNS);
    await recordAudit(trx, {
      actorId,
      action: 'level-category.create',
      subjectType: 'level-category',
      subjectId: created.id,
      after: { title: created.title, number: created.number, icons: created.icons },
    });
    return created;
  });
}
