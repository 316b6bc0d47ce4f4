import Router from '@koa/router';
import type { AppRouter } from '../../app-context.ts';
import type { AppDeps } from '../../app.ts';

/** Routes of introducees, 'meelopers' (/api/admin/introduction). */
export function introductionRoutes(_deps: AppDeps): AppRouter {
  const router: AppRouter = new Router();
  return router;
}
