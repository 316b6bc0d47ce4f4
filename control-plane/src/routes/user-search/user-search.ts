import Router from '@koa/router';
import type { AppRouter } from '../../app-context.ts';
import type { AppDeps } from '../../app.ts';

/** Routes of the user search (POST /api/users/search). */
export function userSearchRoutes(_deps: AppDeps): AppRouter {
  const router: AppRouter = new Router();
  return router;
}
