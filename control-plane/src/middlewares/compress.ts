import { Stream } from 'node:stream';
import { constants } from 'node:zlib';
import koaCompress from 'koa-compress';
import type { AppContext, AppMiddleware } from '../http-context.ts';

/**
 * Text we compress: HTML, CSS, JavaScript, JSON (also NDJSON and +json), XML and SVG. Never
 * server-sent events (text/event-stream: each event must reach the browser at once, a
 * compressor would hold it back) nor raster images (PNG thumbnails are compressed already).
 */
export const isCompressible = (mimeType: string): boolean =>
  mimeType !== 'text/event-stream' &&
  /^(text\/[\w.+-]+|application\/(javascript|json|x-ndjson|xml|manifest\+json|[\w.-]+\+json|[\w.-]+\+xml)|image\/svg\+xml)$/.test(mimeType);

/**
 * Brotli at quality 4 for answers made per request: higher levels cost far more CPU (2 cores)
 * for a few percent fewer bytes. Answers built once and kept (the websites wall, the web app's
 * precompressed files) use higher levels where they are made.
 */
export const DYNAMIC_BROTLI_QUALITY = 4;

/** Below this size compressing costs more than it saves (headers alone are ~300 bytes). */
const THRESHOLD_BYTES = 1024;

/** An ETag of the identity bytes describes another representation once encoded: weak (RFC 9110 §8.8.3). */
function weakenEtag(ctx: AppContext): void {
  const etag = ctx.response.get('ETag');
  if (etag && !etag.startsWith('W/') && ctx.response.get('Content-Encoding')) ctx.set('ETag', `W/${etag}`);
}

/**
 * Compresses answers with brotli or gzip when the client accepts it (koa-compress: streams are
 * piped through the compressor, so a long answer starts at once). Bodies that a route already
 * encoded (Content-Encoding set: the precompressed wall, koa-static's .br/.gz files) and
 * `Cache-Control: no-transform` answers (log follows, pulls) pass untouched. Every answer
 * varies by Accept-Encoding. A strong ETag on an encoded answer becomes weak; Koa's freshness
 * check compares weakly, so If-None-Match still gets its 304.
 */
export function compressAnswers(): AppMiddleware {
  const compress = koaCompress({
    filter: isCompressible,
    threshold: THRESHOLD_BYTES,
    br: { params: { [constants.BROTLI_PARAM_QUALITY]: DYNAMIC_BROTLI_QUALITY } },
    gzip: { level: 6 },
    deflate: false,
    // Newer Node versions offer zstd: not every browser reads it yet; brotli and gzip suffice.
    zstd: false,
  }) as unknown as AppMiddleware;
  return async (ctx, next) => {
    // A client that takes no encoding (API tools, benches) skips the middleware's work entirely.
    if (!acceptsCompression(ctx)) {
      ctx.vary('Accept-Encoding');
      return next();
    }
    await compress(ctx, async () => {
      await next();
      serialiseJsonBody(ctx);
    });
    weakenEtag(ctx);
  };
}

const acceptsCompression = (ctx: AppContext): boolean => ctx.acceptsEncodings('br', 'gzip', 'identity') !== 'identity';

/**
 * An object body as the JSON text Koa would send: Koa measures an object body (for the
 * threshold) by serialising it, and koa-compress serialises it again; once is enough.
 */
function serialiseJsonBody(ctx: AppContext): void {
  const body: unknown = ctx.body;
  if (typeof body !== 'object' || body === null || Buffer.isBuffer(body) || body instanceof Stream) return;
  ctx.body = JSON.stringify(body);
}
