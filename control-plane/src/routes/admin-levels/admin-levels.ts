import Router from '@koa/router';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { addCategoryRoutes } from './categories.ts';
import { addContentRoutes } from './content.ts';
import { addCourseRoutes } from './courses.ts';
import { addStudentLevelRoutes } from './student-levels.ts';

/**
 * Routes of the teachers' level tools (contract/src/http/admin-levels.ts; admin flag only): level
 * categories, level content with its courses, texts and files, levels per student. (The
 * selector's group list, GET /api/admin/groups, lives in the groups router.)
 */
export function adminLevelRoutes(deps: AppDeps): AppRouter {
  const router: AppRouter = new Router();
  addCategoryRoutes(router, deps.knex);
  addContentRoutes(router, deps.knex);
  addCourseRoutes(router, deps.knex, deps.courseFiles);
  addStudentLevelRoutes(router, deps.knex);
  return router;
}
