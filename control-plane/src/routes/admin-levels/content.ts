import type { Knex } from 'knex';
import type { AppRouter } from '../../app-context.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { parseInput } from '../../middlewares/validate.ts';
import { notFound, validationFailed } from '../../errors.ts';
import { authorizeLevelManagement } from '../../policies/admin-level-policy.ts';
import { presentLevelContent, type LevelContentRow } from '../../presenters/present-level-content.ts';
import { updateLevelContent } from '../../commands/update-level-content.ts';
import { createLevelContent } from '../../commands/create-level-content.ts';
import { findLevelContentRow, levelCategoryExists, listLevelContents } from '../../queries/levels.ts';
import { categoryIdParams, contentInput, idParams, type ContentInput } from './schema.ts';

async function loadContent(knex: Knex, id: number): Promise<LevelContentRow> {
  const row = await findLevelContentRow(knex, id);
  if (!row) throw notFound('Deze levelinhoud bestaat niet.');
  return row;
}

/** A category named in the body must exist: otherwise it is a field error, not a missing page. */
async function assertCategoryExists(knex: Knex, categoryId: number): Promise<void> {
  if (!(await levelCategoryExists(knex, categoryId))) throw validationFailed({ level_categories_id: ['Deze categorie bestaat niet.'] });
}

const contentColumns = (input: ContentInput) => ({
  title: input.title,
  title_for_teachers: input.title_for_teachers,
  level_category_id: input.level_categories_id,
});

/** Level content (spec §7 admin calls): list, list per category, show, store, update. */
export function addContentRoutes(router: AppRouter, knex: Knex): void {
  router.get('/api/level/content/index', async (ctx) => {
    authorizeLevelManagement(activeUser(ctx));
    ctx.body = (await listLevelContents(knex)).map(presentLevelContent);
  });

  router.get('/api/level/content/index-by-category/:categoryId', async (ctx) => {
    authorizeLevelManagement(activeUser(ctx));
    const { categoryId } = parseInput(ctx, categoryIdParams, 'params');
    if (!(await levelCategoryExists(knex, categoryId))) throw notFound('Deze categorie bestaat niet.');
    ctx.body = (await listLevelContents(knex, categoryId)).map(presentLevelContent);
  });

  router.get('/api/level/content/show/:id', async (ctx) => {
    authorizeLevelManagement(activeUser(ctx));
    const { id } = parseInput(ctx, idParams, 'params');
    ctx.body = presentLevelContent(await loadContent(knex, id));
  });

  router.post('/api/level/content/store', async (ctx) => {
    const user = activeUser(ctx);
    authorizeLevelManagement(user);
    const input = parseInput(ctx, contentInput, 'body');
    await assertCategoryExists(knex, input.level_categories_id);
    const id = await createLevelContent(knex, contentColumns(input), user.id);
    ctx.status = 201;
    ctx.body = presentLevelContent(await loadContent(knex, id));
  });

  router.post('/api/level/content/update/:id', async (ctx) => {
    const user = activeUser(ctx);
    authorizeLevelManagement(user);
    const { id } = parseInput(ctx, idParams, 'params');
    await loadContent(knex, id);
    const input = parseInput(ctx, contentInput, 'body');
    await assertCategoryExists(knex, input.level_categories_id);
    await updateLevelContent(knex, id, contentColumns(input), user.id);
    ctx.body = presentLevelContent(await loadContent(knex, id));
  });
}
