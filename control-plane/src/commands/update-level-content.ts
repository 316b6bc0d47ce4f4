import type { Knex } from 'knex';
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
    const before = await trx('level_contents')
      .where({ id })
      .forUpdate()
      .first<{ title: string; title_for_teachers: string | null; level_category_id: number } | undefined>(
        'title', 'title_for_teachers', 'level_category_id',
      );
    await trx('level_contents').where({ id }).update(values);
    const detached = await trx('levels')
      .where({ level_content_id: id })
      .whereNot({ level_category_id: values.level_category_id })
      .update({ level_content_id: null });
    await recordAudit(trx, {
      actorId,
      action: 'level-content.update',
      subjectType: 'level-content',
      subjectId: id,
      before: before ?? null,
      after: detached > 0 ? { ...values, detached_levels: detached } : values,
    });
  });
}
