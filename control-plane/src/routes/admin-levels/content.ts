import type { Knex } from 'knex';
import {
  listLevelContents as listLevelContentsEndpoint,
  listLevelContentsOfCategory,
  showLevelContent,
  storeLevelContent,
  updateLevelContent as updateLevelContentEndpoint,
  type ContentBody,
} from '@devplein/contract/http/admin-levels';
import type { AppRouter } from '../../app-context.ts';
import { notFound, validationFailed } from '../../errors.ts';
import { presentLevelContent } from '../../presenters/present-level-content.ts';
import type { LevelContentRow } from '../../queries/levels.ts';
import { updateLevelContent } from '../../commands/update-level-content.ts';
import { createLevelContent } from '../../commands/create-level-content.ts';
import { findLevelContentRow, levelCategoryExists, listLevelContents } from '../../queries/levels.ts';
import { handle } from '../handle.ts';

async function loadContent(knex: Knex, id: number): Promise<LevelContentRow> {
  const row = await findLevelContentRow(knex, id);
  if (!row) throw notFound('Deze levelinhoud bestaat niet.');
  return row;
}

/** A category named in the body must exist: otherwise it is a field error, not a missing page. */
async function assertCategoryExists(knex: Knex, categoryId: number): Promise<void> {
  if (!(await levelCategoryExists(knex, categoryId))) throw validationFailed({ level_categories_id: ['Deze categorie bestaat niet.'] });
}

const contentColumns = (input: ContentBody) => ({
  title: input.title,
  title_for_teachers: input.title_for_teachers,
  level_category_id: input.level_categories_id,
});

/** Level content (spec §7 admin calls): list, list per category, show, store, update. */
export function addContentRoutes(router: AppRouter, knex: Knex): void {
  handle(router, listLevelContentsEndpoint, async () => (await listLevelContents(knex)).map(presentLevelContent));

  handle(router, listLevelContentsOfCategory, async (_ctx, { params: { categoryId } }) => {
    if (!(await levelCategoryExists(knex, categoryId))) throw notFound('Deze categorie bestaat niet.');
    return (await listLevelContents(knex, categoryId)).map(presentLevelContent);
  });

  handle(router, showLevelContent, async (_ctx, { params: { id } }) => presentLevelContent(await loadContent(knex, id)));

  handle(router, storeLevelContent, async (ctx, { caller, body }) => {
    await assertCategoryExists(knex, body.level_categories_id);
    const id = await createLevelContent(knex, contentColumns(body), caller.id);
    ctx.status = 201;
    return presentLevelContent(await loadContent(knex, id));
  });

  handle(router, updateLevelContentEndpoint, async (_ctx, input) => {
    const { id } = input.params;
    await loadContent(knex, id);
    // The body is read after the content is found: an unknown id is a 404, whatever the body.
    const body = input.body;
    await assertCategoryExists(knex, body.level_categories_id);
    await updateLevelContent(knex, id, contentColumns(body), input.caller.id);
    return presentLevelContent(await loadContent(knex, id));
  });
}
