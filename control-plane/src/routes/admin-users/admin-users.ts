import Router from '@koa/router';
import type { AppRouter } from '../../app-context.ts';
import type { AppDeps } from '../../app.ts';

/** Routes of the users admin (GET/PUT/DELETE /api/admin/users). */
export function adminUserRoutes(_deps: AppDeps): AppRouter {
  const router: AppRouter = new Router();
  return router;
}
