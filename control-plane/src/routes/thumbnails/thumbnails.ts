import { createHash } from 'node:crypto';
import Router from '@koa/router';
import type { AppContext, AppDeps, AppRouter } from '../../app-context.ts';
import { isShownOnWall, isThumbnailServable } from '../../policies/site-policy.ts';
import { loadThumbnailHead, loadThumbnailPng } from '../../queries/thumbnails.ts';
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
 * with a short max-age, so 1,500 tiles revalidate with 304s instead of downloading again.
 */
export function thumbnailRoutes(deps: Pick<AppDeps, 'knex'>): AppRouter {
  const router: AppRouter = new Router();
  const { knex } = deps;

  router.get('/misc/browserimg2/small/:file', async (ctx) => {
    // The name is checked before any query; a bad name is simply a missing file.
    const parsed = smallThumbnailParams.safeParse({ file: ctx.params.file });
    if (!parsed.success) return noThumbnail(ctx);

    const head = await loadThumbnailHead(knex, parsed.data.file);
    if (!head || !isShownOnWall(head) || !isThumbnailServable(head)) return noThumbnail(ctx);

    ctx.status = 200;
    ctx.type = 'image/png';
    ctx.set('Cache-Control', `public, max-age=${THUMBNAIL_MAX_AGE_S}, must-revalidate`);
    if (head.captured_at) ctx.lastModified = new Date(head.captured_at);
    if (head.etag) {
      ctx.set('ETag', quoted(head.etag));
      // Revalidation answers without reading the image bytes.
      if (ctx.fresh) return notModified(ctx);
    }
    const png = await loadThumbnailPng(knex, head.id);
    if (!png) return noThumbnail(ctx);
    if (!head.etag) {
      // A row stored without an etag: derive one from the bytes.
      ctx.set('ETag', `"${createHash('sha1').update(png).digest('base64url')}"`);
      if (ctx.fresh) return notModified(ctx);
    }
    ctx.body = png;
  });

  return router;
}
