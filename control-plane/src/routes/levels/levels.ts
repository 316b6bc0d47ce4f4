import Router from '@koa/router';
import { courseFile, level as levelEndpoint, levelCategories } from '@devplein/contract/http/levels';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { forbidden, notFound } from '../../errors.ts';
import { LOCKED_LEVEL_MESSAGE, mayFindLevel, mayReadLevelContent, mayViewLevels } from '../../policies/level-policy.ts';
import { isAdmin } from '../../policies/roles.ts';
import { presentLevelCategories } from '../../presenters/present-level-categories.ts';
import { presentLevel } from '../../presenters/present-level.ts';
import {
  loadCategories,
  loadCourseFile,
  loadCourseGraph,
  loadLevel,
  loadStatusesForContent,
  loadUserLevels,
} from '../../queries/levels.ts';
import { handle } from '../handle.ts';
import { attachmentDisposition, contentTypeOf } from './content-type.ts';

const NO_LEVELS_MESSAGE = 'Levels zijn er alleen voor studenten van een SD-klas en voor ontwikkelaars met een klas.';

/**
 * Levels for students (contract/src/http/levels.ts): the overview, one level with its courses and
 * course file downloads. Activated accounts the Levels menu is for, and admins.
 * Admin tools for levels live in routes/admin-levels.
 */
export function levelRoutes(deps: AppDeps): AppRouter {
  const { knex } = deps;
  const router: AppRouter = new Router();

  handle(router, levelCategories, async (_ctx, { caller }) => {
    if (!mayViewLevels(caller)) throw forbidden(NO_LEVELS_MESSAGE);
    const [categories, levels] = await Promise.all([loadCategories(knex), loadUserLevels(knex, caller.id)]);
    return presentLevelCategories(categories, levels, caller.group?.cohort ?? null);
  });

  handle(router, courseFile, async (ctx, { caller, params: { fileId } }) => {
    if (!mayViewLevels(caller)) throw forbidden(NO_LEVELS_MESSAGE);
    const file = await loadCourseFile(knex, fileId);
    if (!file) throw notFound('Dit bestand bestaat niet.');
    if (!isAdmin(caller)) {
      // The file is the student's when one of their levels uses its content; readable when that level is not locked.
      const statuses = await loadStatusesForContent(knex, caller.id, file.level_content_id);
      if (statuses.length === 0) throw notFound('Dit bestand bestaat niet.');
      if (!statuses.some((status) => mayReadLevelContent(caller, { status }))) throw forbidden(LOCKED_LEVEL_MESSAGE);
    }
    let data: Buffer;
    try {
      data = await deps.courseFiles.read(file.storage_key);
    } catch (error) {
      ctx.state.log.error({ err: error, fileId: file.id }, 'course file missing from storage');
      throw notFound('Dit bestand is niet meer beschikbaar. Meld het bij je docent.');
    }
    ctx.set('Content-Disposition', attachmentDisposition(file.filename));
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cache-Control', 'private, no-store');
    ctx.type = contentTypeOf(file.type, file.filename);
    ctx.body = data;
  });

  handle(router, levelEndpoint, async (_ctx, { caller, params: { id } }) => {
    if (!mayViewLevels(caller)) throw forbidden(NO_LEVELS_MESSAGE);
    const level = await loadLevel(knex, id);
    if (!level || !mayFindLevel(caller, level)) throw notFound('Dit level bestaat niet.');
    if (!mayReadLevelContent(caller, level)) throw forbidden(LOCKED_LEVEL_MESSAGE);
    const courses = level.level_content_id === null ? [] : await loadCourseGraph(knex, level.level_content_id);
    return presentLevel(level, courses);
  });

  return router;
}
