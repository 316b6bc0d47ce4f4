import Router from '@koa/router';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { addCategoryRoutes } from './categories.ts';
import { addContentRoutes } from './content.ts';
import { addCourseRoutes } from './courses.ts';
import { addStudentLevelRoutes } from './student-levels.ts';

/**
 * Routes of the teachers' level tools (admin flag only): level categories, level content with
 * its courses, texts and files, levels per student. (The selector's group list, GET /api/admin/groups, lives in the groups router.)
 *
 * Calls beyond spec §7 (documented for the web app and other areas):
 * - GET /api/admin/level/categories                         every category {id, title, number, icons 0/1}
 * - GET|POST /api/level/content/{id}/courses                list (with texts and files) / add {title}
 * - PUT|DELETE /api/level/courses/{courseId}                rename {title} / delete (texts, files go too)
 * - POST /api/level/courses/{courseId}/move                 {direction: 'up'|'down'}
 * - POST /api/level/courses/{courseId}/texts                {title, body (Markdown)}
 * - PUT|DELETE /api/level/courses/{courseId}/texts/{textId}, POST .../texts/{textId}/move
 * - POST /api/level/courses/{courseId}/files?title=&filename=   raw body (application/octet-stream), ≤ 10 MB
 * - PUT|DELETE /api/level/courses/{courseId}/files/{fileId}, POST .../files/{fileId}/move
 */
export function adminLevelRoutes(deps: AppDeps): AppRouter {
  const router: AppRouter = new Router();
  addCategoryRoutes(router, deps.knex);
  addContentRoutes(router, deps.knex);
  addCourseRoutes(router, deps.knex, deps.courseFiles);
  addStudentLevelRoutes(router, deps.knex);
  return router;
}
