import type { Knex } from 'knex';
import type { AppRouter } from '../../app-context.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { parseInput } from '../../middlewares/validate.ts';
import { notFound } from '../../errors.ts';
import { authorizeLevelManagement } from '../../policies/admin-level-policy.ts';
import { presentLevelCategory, type LevelCategoryRow } from '../../presenters/present-level-category.ts';
import { categoryInput, idParams } from './schema.ts';
import { recordAudit } from '../../audit/record-audit.ts';

const COLUMNS = ['id', 'title', 'number', 'icons'] as const;

/**
 * Level categories (spec §7 admin calls). GET /api/level/categories/index belongs to the student
 * level routes (it carries the student's own levels and the §9 number-16 rule), so the admin list
 * has its own call: GET /api/admin/level/categories (every category, stored number, ordered by id).
 */
export function addCategoryRoutes(router: AppRouter, knex: Knex): void {
  router.get('/api/admin/level/categories', async (ctx) => {
    authorizeLevelManagement(activeUser(ctx));
    const rows = await knex<LevelCategoryRow>('level_categories').select(...COLUMNS).orderBy('id');
    ctx.body = rows.map(presentLevelCategory);
  });

  router.get('/api/level/categories/show/:id', async (ctx) => {
    authorizeLevelManagement(activeUser(ctx));
    const { id } = parseInput(ctx, idParams, 'params');
    const row = await knex<LevelCategoryRow>('level_categories').select(...COLUMNS).where({ id }).first();
    if (!row) throw notFound('Deze categorie bestaat niet.');
    ctx.body = presentLevelCategory(row);
  });

  router.post('/api/level/categories/store', async (ctx) => {
    const user = activeUser(ctx);
    authorizeLevelManagement(user);
    const input = parseInput(ctx, categoryInput, 'body');
    const row = await knex.transaction(async (trx) => {
      const [created] = await trx<LevelCategoryRow>('level_categories')
        .insert({ title: input.title, number: input.number, icons: input.icons })
        .returning([...COLUMNS]);
      await recordAudit(trx, {
        actorId: user.id,
        action: 'level-category.create',
        subjectType: 'level-category',
        subjectId: created!.id,
        after: { title: created!.title, number: created!.number, icons: created!.icons },
      });
      return created!;
    });
    ctx.status = 201;
    ctx.body = presentLevelCategory(row);
  });

  router.post('/api/level/categories/update/:id', async (ctx) => {
    const user = activeUser(ctx);
    authorizeLevelManagement(user);
    const { id } = parseInput(ctx, idParams, 'params');
    const input = parseInput(ctx, categoryInput, 'body');
    const row = await knex.transaction(async (trx) => {
      const before = await trx<LevelCategoryRow>('level_categories').where({ id }).forUpdate().first(...COLUMNS);
      if (!before) return undefined;
      const [updated] = await trx<LevelCategoryRow>('level_categories')
        .where({ id })
        .update({ title: input.title, number: input.number, icons: input.icons })
        .returning([...COLUMNS]);
      await recordAudit(trx, {
        actorId: user.id,
        action: 'level-category.update',
        subjectType: 'level-category',
        subjectId: id,
        before: { title: before.title, number: before.number, icons: before.icons },
        after: { title: updated!.title, number: updated!.number, icons: updated!.icons },
      });
      return updated!;
    });
    if (!row) throw notFound('Deze categorie bestaat niet.');
    ctx.body = presentLevelCategory(row);
  });
}
