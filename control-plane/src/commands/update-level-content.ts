import type { Knex } from 'knex';
import { Level } from '../models/Level.ts';
import { LevelContent } from '../models/LevelContent.ts';
import { recordAudit } from '../audit/record-audit.ts';

/**
 * Saves level content and records 'level-content.update' (before/after) in the same transaction.
 * When its category changes, levels of the old category that pointed at it lose it
 * (level_content_id null): a level may only show content of its own category.
 */
export async function updateLevelContent(
  knex: Knex,
  id: number,
  values: { title: string; title_for_teachers: string | null; level_category_id: number },
  actorId: number | null,
): Promise<void> {
  await knex.transaction(async (trx) => {
    const before = await LevelContent.query(trx)
      .select('title', 'title_for_teachers', 'level_category_id')
      .findById(id)
      .forUpdate();
    await LevelContent.query(trx).patch(values).where({ id });
    const detached = await Level.query(trx)
      .patch({ level_content_id: null })
      .where({ level_content_id: id })
      .whereNot({ level_category_id: values.level_category_id });
    await recordAudit(trx, {
      actorId,
      action: 'level-content.update',
      subjectType: 'level-content',
      subjectId: id,
      // Plain values in the stored column order (a model instance would carry more than the row).
      before: before
        ? { title: before.title, title_for_teachers: before.title_for_teachers, level_category_id: before.level_category_id }
        : null,
      after: detached > 0 ? { ...values, detached_levels: detached } : values,
    });
  });
}
