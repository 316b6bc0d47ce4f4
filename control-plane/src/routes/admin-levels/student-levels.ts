import type { Knex } from 'knex';
import type { AppRouter } from '../../app-context.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { parseInput } from '../../middlewares/validate.ts';
import { notFound, validationFailed, type FieldErrors } from '../../errors.ts';
import { authorizeLevelManagement } from '../../policies/admin-level-policy.ts';
import { presentGroupStudent, presentStudentLevel, type StudentLevelJson } from '../../presenters/present-student-level.ts';
import { setStudentLevels, storeStudentLevel } from '../../commands/set-student-levels.ts';
import { recordAudit } from '../../audit/record-audit.ts';
import { bulkLevelInput, groupIdParams, levelStatusInput, levelStoreInput } from './schema.ts';

const LEVEL_COLUMNS = ['id', 'user_id', 'number', 'status', 'level_category_id', 'level_content_id'] as const;

/**
 * Checks the references of a level change; every problem is a field error (422): the request
 * names them, they are not the page's subject. Level numbers run 1..category.number.
 */
async function checkLevelReferences(
  knex: Knex,
  refs: { categoryId: number; number: number; numberField: string; contentId?: number | null; userIds: readonly number[]; usersField: string },
): Promise<void> {
  const errors: FieldErrors = {};
  const category = await knex('level_categories').where({ id: refs.categoryId }).first<{ number: number } | undefined>('number');
  if (!category) errors.category_id = ['Deze categorie bestaat niet.'];
  else if (refs.number > category.number) errors[refs.numberField] = [`Deze categorie heeft levels 1 tot en met ${category.number}.`];
  if (refs.contentId !== undefined && refs.contentId !== null) {
    const content = await knex('level_contents').where({ id: refs.contentId }).first<{ level_category_id: number } | undefined>('level_category_id');
    if (!content) errors.content_id = ['Deze levelinhoud bestaat niet.'];
    else if (content.level_category_id !== refs.categoryId) errors.content_id = ['Deze levelinhoud hoort bij een andere categorie.'];
  }
  const found = await knex('users').whereIn('id', refs.userIds).pluck<number[]>('id');
  if (found.length !== refs.userIds.length) {
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
  router.get('/api/users/by-group/:groupId', async (ctx) => {
    authorizeLevelManagement(activeUser(ctx));
    const { groupId } = parseInput(ctx, groupIdParams, 'params');
    const group = await knex('groups').where({ id: groupId }).first('id');
    if (!group) throw notFound('Deze groep bestaat niet.');
    const users = await knex('users')
      .where({ group_id: groupId })
      .whereNull('disabled_at')
      .orderBy([{ column: 'name' }, { column: 'email' }, { column: 'id' }])
      .select<Array<{ id: number; name: string; email: string }>>('id', 'name', 'email');
    const levels = await knex('levels')
      .whereIn(
        'user_id',
        users.map((user) => user.id),
      )
      .orderBy([{ column: 'level_category_id' }, { column: 'number' }])
      .select<StudentLevelJson[]>(LEVEL_COLUMNS);
    const byUser = new Map<number, StudentLevelJson[]>();
    for (const level of levels) {
      const list = byUser.get(level.user_id);
      if (list) list.push(level);
      else byUser.set(level.user_id, [level]);
    }
    ctx.body = users.map((user) => presentGroupStudent(user, byUser.get(user.id) ?? []));
  });

  router.post('/api/level/update/multiple', async (ctx) => {
    const user = activeUser(ctx);
    authorizeLevelManagement(user);
    const input = parseInput(ctx, bulkLevelInput, 'body');
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
    }, user.id);
    ctx.body = { updated: levels.length, levels: levels.map(presentStudentLevel) };
  });

  router.post('/api/level/update-status', async (ctx) => {
    const user = activeUser(ctx);
    authorizeLevelManagement(user);
    const input = parseInput(ctx, levelStatusInput, 'body');
    const status = await knex.transaction(async (trx) => {
      const before = await trx('levels').where({ id: input.level }).forUpdate().first<{ status: string } | undefined>('status');
      if (!before) return undefined;
      await trx('levels').where({ id: input.level }).update({ status: input.status });
      await recordAudit(trx, {
        actorId: user.id,
        action: 'level.status',
        subjectType: 'level',
        subjectId: input.level,
        before: { status: before.status },
        after: { status: input.status },
      });
      return input.status;
    });
    if (!status) throw notFound('Dit level bestaat niet.');
    ctx.body = { status };
  });

  router.post('/api/level/store', async (ctx) => {
    const user = activeUser(ctx);
    authorizeLevelManagement(user);
    const input = parseInput(ctx, levelStoreInput, 'body');
    await checkLevelReferences(knex, {
      categoryId: input.category_id,
      number: input.number,
      numberField: 'number',
      contentId: input.content_id,
      userIds: [input.user],
      usersField: 'user',
    });
    if (input.content_id === null) {
      const existing = await knex('levels')
        .where({ user_id: input.user, level_category_id: input.category_id, number: input.number })
        .first('id');
      if (!existing) throw validationFailed({ content_id: ['Kies een levelinhoud.'] });
    }
    const level = await storeStudentLevel(knex, {
      userId: input.user,
      categoryId: input.category_id,
      number: input.number,
      contentId: input.content_id,
    }, user.id);
    ctx.body = { status: level.status, level_content_id: level.level_content_id, id: level.id };
  });
}
