import type { Knex } from 'knex';
import { LevelCategory } from '../models/LevelCategory.ts';
import { recordAudit } from '../audit/record-audit.ts';

const COLUMNS = ['id', 'title', 'number', 'icons'];

/**
 * Saves a level category and records 'level-category.update' (before/after) in the same
 * transaction; undefined when the category does not exist.
 */
export async function updateLevelCategory(
  knex: Knex,
  id: number,
  values: { title: string; number: number; icons: boolean },
  actorId: number | null,
): Promise<LevelCategory | undefined> {
  return knex.transaction(async (trx) => {
    const before = await LevelCategory.query(trx).select(COLUMNS).findById(id).forUpdate();
    if (!before) return undefined;
    const [updated] = await LevelCategory.query(trx)
      .patch({ title: values.title, number: values.number, icons: values.icons })
      .where({ id })
      .returning(COLUMNS);
    await recordAudit(trx, {
      actorId,
      action: 'level-category.update',
      subjectType: 'level-category',
      subjectId: id,
      before: { title: before.title, number: before.number, icons: before.icons },
      after: { title: updated!.title, number: updated!.number, icons: updated!.icons },
    });
    return updated!;
  });
}
