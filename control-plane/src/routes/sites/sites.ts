import Router from '@koa/router';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { forbidden } from '../../errors.ts';
import { mayViewSiteWall } from '../../policies/site-policy.ts';
import { sharedLoad } from '../../lib/shared-load.ts';
import { buildSiteWall } from './site-wall.ts';

/**
 * GET /api/sites: the websites wall (spec §2, §3 Site), public like /websites itself. Same answer
 * for every viewer, so concurrent requests share one load and the browser revalidates by ETag.
 */
export function sitesRoutes(deps: Pick<AppDeps, 'knex'>): AppRouter {
  const router: AppRouter = new Router();
  const loadWall = sharedLoad(() => buildSiteWall(deps.knex));

  router.get('/api/sites', async (ctx) => {
    if (!mayViewSiteWall(ctx.state.user)) throw forbidden();
    const wall = await loadWall();
    ctx.status = 200;
    ctx.type = 'application/json';
    // The list changes whenever a project or member changes: always revalidate (cheap with the ETag).
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('ETag', wall.etag);
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.body = wall.json;
  });

  return router;
}
