import Router from '@koa/router';
import type { AppRouter } from '../../app-context.ts';
import type { AppDeps } from '../../app.ts';

/** Routes of licences (requests by users, approval by admins). */
export function licenseRoutes(_deps: AppDeps): AppRouter {
  const router: AppRouter = new Router();
  return router;
}
