import Router from '@koa/router';
import { siteWall } from '@devplein/contract/http/sites';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { forbidden } from '../../errors.ts';
import { mayViewSiteWall } from '../../policies/site-policy.ts';
import { sendPrecompressed } from './precompressed.ts';
import { handle, WRITTEN } from '../handle.ts';
import { siteWallBuilder } from './site-wall.ts';

/**
 * GET /api/sites (contract/src/http/sites.ts): the websites wall (spec §2, §3 Site), public like /websites itself. Same answer
 * for every viewer, so it is kept in memory (auth/identity-cache.ts) until a write to projects,
 * members, thumbnails or users announces a change; each data version is serialised and
 * compressed once (brotli or gzip as the browser accepts), and the browser revalidates by ETag.
 */
export function sitesRoutes(deps: Pick<AppDeps, 'knex' | 'identity' | 'identityNotices'>): AppRouter {
  const router: AppRouter = new Router();
  // Concurrent loads are coalesced by siteWall, which never joins a load that began before a change.
  const loadWall = siteWallBuilder(deps.knex);

  handle(router, siteWall, async (ctx, { caller }) => {
    if (!mayViewSiteWall(caller)) throw forbidden();
    // Kept in memory until a notice says the wall changed (migration 0012). A signed-in request
    // caught up with the notices before it got here; a visitor without a session does now.
    if (!ctx.state.user) await deps.identityNotices.settle();
    const wall = await deps.identity.siteWall(loadWall);
    ctx.status = 200;
    ctx.type = 'application/json';
    // The list changes whenever a project or member changes: always revalidate (cheap with the ETag).
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('ETag', wall.etag);
    if (ctx.fresh) {
      ctx.status = 304;
      return WRITTEN;
    }
    sendPrecompressed(ctx, wall.body);
    return WRITTEN;
  });

  return router;
}
