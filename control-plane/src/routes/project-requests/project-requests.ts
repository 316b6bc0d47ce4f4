import Router from '@koa/router';
import type { AppRouter } from '../../app-context.ts';
import type { AppDeps } from '../../app.ts';

/** Routes of project requests by students (POST/PUT /api/user/project, GET /api/dockers). */
export function projectRequestRoutes(_deps: AppDeps): AppRouter {
  const router: AppRouter = new Router();
  return router;
}
