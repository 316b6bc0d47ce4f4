import type { Knex } from 'knex';

/**
 * Saves level content. When its category changes, levels of the old category that pointed at it
 * lose it (level_content_id null): a level may only show content of its own category.
 */
export async function updateLevelContent(
  knex: Knex,
  id: number,
  values: { title: string; title_for_teachers: string | null; level_category_id: number },
): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx('level_contents').where({ id }).update(values);
    await trx('levels')
      .where({ level_content_id: id })
      .whereNot({ level_category_id: values.level_category_id })
      .update({ level_content_id: null });
  });
}
