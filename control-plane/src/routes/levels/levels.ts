import Router from '@koa/router';
import type { AppRouter } from '../../app-context.ts';
import type { AppDeps } from '../../app.ts';

/** Routes of levels for students (GET /api/level/categories/index, GET /api/level/{id}, course file downloads). */
export function levelRoutes(_deps: AppDeps): AppRouter {
  const router: AppRouter = new Router();
  return router;
}
