import Router from '@koa/router';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { parseInput } from '../../middlewares/validate.ts';
import { forbidden, notFound } from '../../errors.ts';
import { LOCKED_LEVEL_MESSAGE, mayFindLevel, mayReadLevelContent, mayViewLevels } from '../../policies/level-policy.ts';
import { isAdmin } from '../../policies/roles.ts';
import { presentLevelCategories } from '../../presenters/present-level-categories.ts';
import { presentLevel } from '../../presenters/present-level.ts';
import { courseFileIdParams, levelIdParams } from './schema.ts';
import {
  loadCategories,
  loadCourseFile,
  loadCourseGraph,
  loadLevel,
  loadStatusesForContent,
  loadUserLevels,
} from '../../queries/levels.ts';
import { attachmentDisposition, contentTypeOf } from './content-type.ts';

const NO_LEVELS_MESSAGE = 'Levels zijn er alleen voor studenten van een SD-klas en voor ontwikkelaars met een klas.';

/**
 * Levels for students: the overview (GET /api/level/categories/index), one level with its
 * courses (GET /api/level/{id}) and course file downloads (GET /api/level/files/{fileId}).
 * Admin tools for levels live in routes/admin-levels.
 */
export function levelRoutes(deps: AppDeps): AppRouter {
  const { knex } = deps;
  const router: AppRouter = new Router();

  router.get('/api/level/categories/index', async (ctx) => {
    const user = activeUser(ctx);
    if (!mayViewLevels(user)) throw forbidden(NO_LEVELS_MESSAGE);
    const [categories, levels] = await Promise.all([loadCategories(knex), loadUserLevels(knex, user.id)]);
    ctx.body = presentLevelCategories(categories, levels, user.group?.cohort ?? null);
  });

  router.get('/api/level/files/:fileId', async (ctx) => {
    const user = activeUser(ctx);
    const { fileId } = parseInput(ctx, courseFileIdParams, 'params');
    if (!mayViewLevels(user)) throw forbidden(NO_LEVELS_MESSAGE);
    const file = await loadCourseFile(knex, fileId);
    if (!file) throw notFound('Dit bestand bestaat niet.');
    if (!isAdmin(user)) {
      // The file is the student's when one of their levels uses its content; readable when that level is not locked.
      const statuses = await loadStatusesForContent(knex, user.id, file.level_content_id);
      if (statuses.length === 0) throw notFound('Dit bestand bestaat niet.');
      if (!statuses.some((status) => mayReadLevelContent(user, { status }))) throw forbidden(LOCKED_LEVEL_MESSAGE);
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

  router.get('/api/level/:id', async (ctx) => {
    const user = activeUser(ctx);
    const { id } = parseInput(ctx, levelIdParams, 'params');
    if (!mayViewLevels(user)) throw forbidden(NO_LEVELS_MESSAGE);
    const level = await loadLevel(knex, id);
    if (!level || !mayFindLevel(user, level)) throw notFound('Dit level bestaat niet.');
    if (!mayReadLevelContent(user, level)) throw forbidden(LOCKED_LEVEL_MESSAGE);
    const courses = level.level_content_id === null ? [] : await loadCourseGraph(knex, level.level_content_id);
    ctx.body = presentLevel(level, courses);
  });

  return router;
}
