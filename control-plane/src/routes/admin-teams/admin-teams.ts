import Router from '@koa/router';
import type { AppRouter } from '../../app-context.ts';
import type { AppDeps } from '../../app.ts';

/** Routes of teams (/api/admin/teams). */
export function adminTeamRoutes(_deps: AppDeps): AppRouter {
  const router: AppRouter = new Router();
  return router;
}
