import type { Knex } from 'knex';
import type { LevelStatus } from '../models/Level.ts';
import type { StudentLevelJson } from '../presenters/present-student-level.ts';

const RETURNING = ['id', 'user_id', 'number', 'status', 'level_category_id', 'level_content_id'] as const;

/**
 * Sets level `number` of a category for many students at once (the bulk forms): one upsert
 * statement, so either every ticked student changes or none. Students without that level get
 * the record; with `contentId` undefined the content of existing records is left alone.
 */
export async function setStudentLevels(
  knex: Knex,
  change: { categoryId: number; number: number; status: LevelStatus; contentId?: number; userIds: readonly number[] },
): Promise<StudentLevelJson[]> {
  const rows = change.userIds.map((userId) => ({
    user_id: userId,
    level_category_id: change.categoryId,
    number: change.number,
    status: change.status,
    level_content_id: change.contentId ?? null,
  }));
  const merged = change.contentId === undefined ? ['status'] : ['status', 'level_content_id'];
  return knex('levels')
    .insert(rows)
    .onConflict(['user_id', 'level_category_id', 'number'])
    .merge(merged)
    .returning<StudentLevelJson[]>(RETURNING);
}

/**
 * Gives one student's level cell its content (POST /api/level/store). A cell without a record
 * gets one, status 'locked'; an existing record keeps its status.
 */
export async function storeStudentLevel(
  knex: Knex,
  cell: { userId: number; categoryId: number; number: number; contentId: number | null },
): Promise<StudentLevelJson> {
  const [row] = await knex('levels')
    .insert({
      user_id: cell.userId,
      level_category_id: cell.categoryId,
      number: cell.number,
      level_content_id: cell.contentId,
      status: 'locked',
    })
    .onConflict(['user_id', 'level_category_id', 'number'])
    .merge(['level_content_id'])
    .returning<StudentLevelJson[]>(RETURNING);
  return row!;
}
