import Router from '@koa/router';
import type { AppRouter } from '../../app-context.ts';
import type { AppDeps } from '../../app.ts';

/** Routes of the teachers' level tools (categories, content, levels per student). */
export function adminLevelRoutes(_deps: AppDeps): AppRouter {
  const router: AppRouter = new Router();
  return router;
}
