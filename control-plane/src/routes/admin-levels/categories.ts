import type { Knex } from 'knex';
import {
  listAdminLevelCategories,
  showLevelCategory,
  storeLevelCategory,
  updateLevelCategory as updateLevelCategoryEndpoint,
} from '@devplein/contract/http/admin-levels';
import type { AppRouter } from '../../app-context.ts';
import { notFound } from '../../errors.ts';
import { presentLevelCategory } from '../../presenters/present-level-category.ts';
import { findLevelCategory, listLevelCategories } from '../../queries/levels.ts';
import { createLevelCategory } from '../../commands/create-level-category.ts';
import { updateLevelCategory } from '../../commands/update-level-category.ts';
import { handle } from '../handle.ts';

/**
 * Level categories (spec §7 admin calls). GET /api/level/categories/index belongs to the student
 * level routes (it carries the student's own levels and the §9 number-16 rule), so the admin list
 * has its own call: GET /api/admin/level/categories (every category, stored number, ordered by id).
 */
export function addCategoryRoutes(router: AppRouter, knex: Knex): void {
  handle(router, listAdminLevelCategories, async () => (await listLevelCategories(knex)).map(presentLevelCategory));

  handle(router, showLevelCategory, async (_ctx, { params: { id } }) => {
    const row = await findLevelCategory(knex, id);
    if (!row) throw notFound('Deze categorie bestaat niet.');
    return presentLevelCategory(row);
  });

  handle(router, storeLevelCategory, async (ctx, { caller, body }) => {
    const row = await createLevelCategory(knex, { title: body.title, number: body.number, icons: body.icons }, caller.id);
    ctx.status = 201;
    return presentLevelCategory(row);
  });

  handle(router, updateLevelCategoryEndpoint, async (_ctx, { caller, params: { id }, body }) => {
    const row = await updateLevelCategory(knex, id, { title: body.title, number: body.number, icons: body.icons }, caller.id);
    if (!row) throw notFound('Deze categorie bestaat niet.');
    return presentLevelCategory(row);
  });
}
