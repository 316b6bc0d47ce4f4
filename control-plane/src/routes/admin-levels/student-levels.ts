import type { Knex } from 'knex';
import { groupStudentLevels, storeStudentLevel as storeStudentLevelEndpoint, updateLevelStatus, updateStudentLevels } from '@devplein/contract/http/admin-levels';
import type { AppRouter } from '../../app-context.ts';
import { notFound, validationFailed, type FieldErrors } from '../../errors.ts';
import { presentGroupStudent, presentLevelStatus, presentStoredStudentLevel, presentStudentLevelsUpdate } from '../../presenters/present-student-level.ts';
import { setStudentLevels } from '../../commands/set-student-levels.ts';
import { storeStudentLevel } from '../../commands/store-student-level.ts';
import { setLevelStatus } from '../../commands/set-level-status.ts';
import { loadGroupStudentLevels, loadLevelReferences, studentLevelExists } from '../../queries/levels.ts';
import { handle } from '../handle.ts';

/**
 * Checks the references of a level change; every problem is a field error (422): the request
 * names them, they are not the page's subject. Level numbers run 1..category.number.
 */
async function checkLevelReferences(
  knex: Knex,
  refs: { categoryId: number; number: number; numberField: string; contentId?: number | null; userIds: readonly number[]; usersField: string },
): Promise<void> {
  const errors: FieldErrors = {};
  const { category, content, foundUserIds } = await loadLevelReferences(knex, refs);
  if (!category) errors.category_id = ['Deze categorie bestaat niet.'];
  else if (refs.number > category.number) errors[refs.numberField] = [`Deze categorie heeft levels 1 tot en met ${category.number}.`];
  if (refs.contentId !== undefined && refs.contentId !== null) {
    if (!content) errors.content_id = ['Deze levelinhoud bestaat niet.'];
    else if (content.level_category_id !== refs.categoryId) errors.content_id = ['Deze levelinhoud hoort bij een andere categorie.'];
  }
  if (foundUserIds.length !== refs.userIds.length) {
    errors[refs.usersField] = [refs.userIds.length === 1 ? 'Deze student bestaat niet.' : 'Niet alle studenten bestaan.'];
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
}

/**
 * Levels per student (spec §2 "Levels per student", §7): one group's
 * students with all their levels, the single-cell and bulk changes.
 */
export function addStudentLevelRoutes(router: AppRouter, knex: Knex): void {
  // The whole table of a group in two queries, whatever the number of students or levels.
  handle(router, groupStudentLevels, async (_ctx, { params: { groupId } }) => {
    const table = await loadGroupStudentLevels(knex, groupId);
    if (!table) throw notFound('Deze groep bestaat niet.');
    return table.map(({ user, levels }) => presentGroupStudent(user, levels));
  });

  handle(router, updateStudentLevels, async (_ctx, { caller, body: input }) => {
    await checkLevelReferences(knex, {
      categoryId: input.category_id,
      number: input.level,
      numberField: 'level',
      contentId: input.content_id,
      userIds: input.ids,
      usersField: 'ids',
    });
    const levels = await setStudentLevels(knex, {
      categoryId: input.category_id,
      number: input.level,
      status: input.status,
      contentId: input.content_id,
      userIds: input.ids,
    }, caller.id);
    return presentStudentLevelsUpdate(levels);
  });

  handle(router, updateLevelStatus, async (_ctx, { caller, body: input }) => {
    const status = await setLevelStatus(knex, input.level, input.status, caller.id);
    if (!status) throw notFound('Dit level bestaat niet.');
    return presentLevelStatus(status);
  });

  handle(router, storeStudentLevelEndpoint, async (_ctx, { caller, body: input }) => {
    await checkLevelReferences(knex, {
      categoryId: input.category_id,
      number: input.number,
      numberField: 'number',
      contentId: input.content_id,
      userIds: [input.user],
      usersField: 'user',
    });
    if (input.content_id === null) {
      const exists = await studentLevelExists(knex, { userId: input.user, categoryId: input.category_id, number: input.number });
      if (!exists) throw validationFailed({ content_id: ['Kies een levelinhoud.'] });
    }
    const level = await storeStudentLevel(knex, {
      userId: input.user,
      categoryId: input.category_id,
      number: input.number,
      contentId: input.content_id,
    }, caller.id);
    return presentStoredStudentLevel(level);
  });
}
