import type { Knex } from 'knex';
import type { AppRouter } from '../../app-context.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { parseInput } from '../../middlewares/validate.ts';
import { notFound, validationFailed } from '../../errors.ts';
import { authorizeLevelManagement } from '../../policies/admin-level-policy.ts';
import { presentLevelContent, type LevelContentRow } from '../../presenters/present-level-content.ts';
import { updateLevelContent } from '../../commands/update-level-content.ts';
import { categoryIdParams, contentInput, idParams, type ContentInput } from './schema.ts';
import { recordAudit } from '../../audit/record-audit.ts';

/** Level content joined with its category title, ordered by category then id. */
export function contentQuery(knex: Knex): Knex.QueryBuilder<LevelContentRow, LevelContentRow[]> {
  return knex<LevelContentRow, LevelContentRow[]>('level_contents as lc')
    .join('level_categories as cat', 'cat.id', 'lc.level_category_id')
    .select('lc.id', 'lc.title', 'lc.title_for_teachers', 'lc.level_category_id', 'cat.title as category_title')
    // knex's select() widens the record type; whether tsc accepts it unconverted depends on check order.
    .orderBy([{ column: 'lc.level_category_id' }, { column: 'lc.id' }]) as unknown as Knex.QueryBuilder<LevelContentRow, LevelContentRow[]>;
}

async function loadContent(knex: Knex, id: number): Promise<LevelContentRow> {
  const row = await contentQuery(knex).where('lc.id', id).first();
  if (!row) throw notFound('Deze levelinhoud bestaat niet.');
  return row;
}

/** A category named in the body must exist: otherwise it is a field error, not a missing page. */
async function assertCategoryExists(knex: Knex, categoryId: number): Promise<void> {
  const category = await knex('level_categories').where({ id: categoryId }).first('id');
  if (!category) throw validationFailed({ level_categories_id: ['Deze categorie bestaat niet.'] });
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
    ctx.body = (await contentQuery(knex)).map(presentLevelContent);
  });

  router.get('/api/level/content/index-by-category/:categoryId', async (ctx) => {
    authorizeLevelManagement(activeUser(ctx));
    const { categoryId } = parseInput(ctx, categoryIdParams, 'params');
    const category = await knex('level_categories').where({ id: categoryId }).first('id');
    if (!category) throw notFound('Deze categorie bestaat niet.');
    ctx.body = (await contentQuery(knex).where('lc.level_category_id', categoryId)).map(presentLevelContent);
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
    const id = await knex.transaction(async (trx) => {
      const values = contentColumns(input);
      const [row] = await trx('level_contents').insert(values).returning<Array<{ id: number }>>('id');
      await recordAudit(trx, {
        actorId: user.id,
        action: 'level-content.create',
        subjectType: 'level-content',
        subjectId: row!.id,
        after: values,
      });
      return row!.id;
    });
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
