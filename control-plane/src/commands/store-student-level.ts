import type { Knex } from 'knex';
import type { StudentLevelJson } from '@devplein/contract/levels';
import { recordAudit } from '../audit/record-audit.ts';

const RETURNING = ['id', 'user_id', 'number', 'status', 'level_category_id', 'level_content_id'] as const;

/**
 * Gives one student's level cell its content (POST /api/level/store). A cell without a record
 * gets one, status 'locked'; an existing record keeps its status. Records 'level.content'
 * (before/after) in the same transaction.
 */
export async function storeStudentLevel(
  knex: Knex,
  cell: { userId: number; categoryId: number; number: number; contentId: number | null },
  actorId: number | null,
): Promise<StudentLevelJson> {
  return knex.transaction(async (trx) => {
    const before = await trx('levels')
      .where({ user_id: cell.userId, level_category_id: cell.categoryId, number: cell.number })
      .forUpdate()
      .first<{ status: string; level_content_id: number | null } | undefined>('status', 'level_content_id');
    const [row] = await trx('levels')
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
    await recordAudit(trx, {
      actorId,
      action: 'level.content',
      subjectType: 'level',
      subjectId: row!.id,
      before: before ?? null,
      after: { status: row!.status, level_content_id: row!.level_content_id },
    });
    return row!;
  });
}
