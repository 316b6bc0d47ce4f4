import type { Knex } from 'knex';
import type { LevelStatus, StudentLevelJson } from '@devplein/contract/levels';
import { recordAudit } from '../audit/record-audit.ts';

const RETURNING = ['id', 'user_id', 'number', 'status', 'level_category_id', 'level_content_id'] as const;

/**
 * Sets level `number` of a category for many students at once (the bulk forms): one upsert
 * statement, so either every ticked student changes or none. Students without that level get
 * the record; with `contentId` undefined the content of existing records is left alone.
 * Records one 'level.bulk-status' entry (or 'level.bulk-content' when content is set too) with
 * the student ids and the levels before and after, in the same transaction.
 */
export async function setStudentLevels(
  knex: Knex,
  change: { categoryId: number; number: number; status: LevelStatus; contentId?: number; userIds: readonly number[] },
  actorId: number | null,
): Promise<StudentLevelJson[]> {
  const rows = change.userIds.map((userId) => ({
    user_id: userId,
    level_category_id: change.categoryId,
    number: change.number,
    status: change.status,
    level_content_id: change.contentId ?? null,
  }));
  const merged = change.contentId === undefined ? ['status'] : ['status', 'level_content_id'];
  return knex.transaction(async (trx) => {
    const before = await trx('levels')
      .where({ level_category_id: change.categoryId, number: change.number })
      .whereIn('user_id', change.userIds)
      .orderBy('user_id')
      .forUpdate()
      .select<Array<{ id: number; user_id: number; status: string; level_content_id: number | null }>>(
        'id', 'user_id', 'status', 'level_content_id',
      );
    const levels = await trx('levels')
      .insert(rows)
      .onConflict(['user_id', 'level_category_id', 'number'])
      .merge(merged)
      .returning<StudentLevelJson[]>(RETURNING);
    await recordAudit(trx, {
      actorId,
      action: change.contentId === undefined ? 'level.bulk-status' : 'level.bulk-content',
      subjectType: 'level-category',
      subjectId: change.categoryId,
      before: { number: change.number, levels: before },
      after: {
        number: change.number,
        status: change.status,
        ...(change.contentId === undefined ? {} : { level_content_id: change.contentId }),
        user_ids: [...change.userIds],
        level_ids: levels.map((level) => level.id),
      },
    });
    return levels;
  });
}
