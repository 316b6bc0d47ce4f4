import Router from '@koa/router';
import { smallThumbnail } from '@devplein/contract/http/thumbnails';
import type { AppContext, AppDeps, AppRouter } from '../../app-context.ts';
import { isShownOnWall, isThumbnailServable } from '../../policies/site-policy.ts';
import { loadStoredThumbnail } from '../../queries/thumbnails.ts';
import { handle } from '../handle.ts';
import { smallThumbnailParams } from './schema.ts';

/** How long a browser may reuse a thumbnail before it asks again (captures are not frequent). */
const THUMBNAIL_MAX_AGE_S = 300;

/** A strong ETag header value for a stored etag (stored quoted or bare). */
const quoted = (etag: string): string => (/^(W\/)?".*"$/.test(etag) ? etag : `"${etag.replace(/"/g, '')}"`);

/** A plain-text 404: an image URL answers like a missing file, and the wall falls back to its own image. */
function noThumbnail(ctx: AppContext): void {
  ctx.status = 404;
  ctx.type = 'text/plain; charset=utf-8';
  ctx.set('Cache-Control', 'no-cache');
  ctx.body = 'Geen screenshot.';
}

function notModified(ctx: AppContext): void {
  ctx.status = 304;
  ctx.body = null;
}

/**
 * Server files outside /api that the old site offered: GET /misc/browserimg2/small/{name}_s.png,
 * the stored thumbnail of a visible project (capturing is a later issue). ETag + Last-Modified
 * with a short max-age, so 1,500 tiles revalidate with 304s instead of downloading again. Kept in
 * memory (bounded) until a write to projects or thumbnails announces a change (migration 0012),
 * like the wall: a class opening /websites at once asks for the same first tiles.
 */
export function thumbnailRoutes(deps: Pick<AppDeps, 'knex' | 'identity' | 'identityNotices'>): AppRouter {
  const router: AppRouter = new Router();
  const { knex, identity, identityNotices } = deps;

  handle(router, smallThumbnail, async (ctx, { params }) => {
    // The name is checked before any query; a bad name is simply a missing file.
    const parsed = smallThumbnailParams.safeParse(params);
    if (!parsed.success) return noThumbnail(ctx);

    // A signed-in request caught up with the notices before it got here; a visitor does now.
    if (!ctx.state.user) await identityNotices.settle();
    const name = parsed.data.file;
    const thumbnail = await identity.thumbnail(name, () => loadStoredThumbnail(knex, name));
    if (!thumbnail?.png || !isShownOnWall(thumbnail) || !isThumbnailServable(thumbnail)) return noThumbnail(ctx);

    ctx.status = 200;
    ctx.type = 'image/png';
    ctx.set('Cache-Control', `public, max-age=${THUMBNAIL_MAX_AGE_S}, must-revalidate`);
    if (thumbnail.captured_at) ctx.lastModified = new Date(thumbnail.captured_at);
    if (thumbnail.etag) ctx.set('ETag', quoted(thumbnail.etag));
    if (ctx.fresh) return notModified(ctx);
    ctx.body = thumbnail.png;
  });

  return router;
}
