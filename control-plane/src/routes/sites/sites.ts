import Router from '@koa/router';
import type { AppRouter } from '../../app-context.ts';
import type { AppDeps } from '../../app.ts';

/** Routes of the websites wall (GET /api/sites) and thumbnails (/misc/browserimg2/small/{name}_s.png). */
export function sitesRoutes(_deps: AppDeps): AppRouter {
  const router: AppRouter = new Router();
  return router;
}
