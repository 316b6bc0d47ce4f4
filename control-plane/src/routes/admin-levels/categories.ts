import type { Knex } from 'knex';
import type { AppRouter } from '../../app-context.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { parseInput } from '../../middlewares/validate.ts';
import { notFound } from '../../errors.ts';
import { authorizeLevelManagement } from '../../policies/admin-level-policy.ts';
import { presentLevelCategory } from '../../presenters/present-level-category.ts';
import { findLevelCategory, listLevelCategories } from '../../queries/levels.ts';
import { createLevelCategory } from '../../commands/create-level-category.ts';
import { updateLevelCategory } from '../../commands/update-level-category.ts';
import { categoryInput, idParams } from './schema.ts';

/**
 * Level categories (spec §7 admin calls). GET /api/level/categories/index belongs to the student
 * level routes (it carries the student's own levels and the §9 number-16 rule), so the admin list
 * has its own call: GET /api/admin/level/categories (every category, stored number, ordered by id).
 */
export function addCategoryRoutes(router: AppRouter, knex: Knex): void {
  router.get('/api/admin/level/categories', async (ctx) => {
    authorizeLevelManagement(activeUser(ctx));
    ctx.body = (await listLevelCategories(knex)).map(presentLevelCategory);
  });

  router.get('/api/level/categories/show/:id', async (ctx) => {
    authorizeLevelManagement(activeUser(ctx));
    const { id } = parseInput(ctx, idParams, 'params');
    const row = await findLevelCategory(knex, id);
    if (!row) throw notFound('Deze categorie bestaat niet.');
    ctx.body = presentLevelCategory(row);
  });

  router.post('/api/level/categories/store', async (ctx) => {
    const user = activeUser(ctx);
    authorizeLevelManagement(user);
    const input = parseInput(ctx, categoryInput, 'body');
    const row = await createLevelCategory(knex, { title: input.title, number: input.number, icons: input.icons }, user.id);
    ctx.status = 201;
    ctx.body = presentLevelCategory(row);
  });

  router.post('/api/level/categories/update/:id', async (ctx) => {
    const user = activeUser(ctx);
    authorizeLevelManagement(user);
    const { id } = parseInput(ctx, idParams, 'params');
    const input = parseInput(ctx, categoryInput, 'body');
    const row = await updateLevelCategory(knex, id, { title: input.title, number: input.number, icons: input.icons }, user.id);
    if (!row) throw notFound('Deze categorie bestaat niet.');
    ctx.body = presentLevelCategory(row);
  });
}
