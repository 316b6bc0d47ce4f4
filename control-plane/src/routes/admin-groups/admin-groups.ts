import Router from '@koa/router';
import type { AppRouter } from '../../app-context.ts';
import type { AppDeps } from '../../app.ts';

/** Routes of groups (/api/admin/groups). */
export function adminGroupRoutes(_deps: AppDeps): AppRouter {
  const router: AppRouter = new Router();
  return router;
}
