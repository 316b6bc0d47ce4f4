import type { AppMiddleware } from '../http-context.ts';

const PRIVATE_PATHS = /^\/(api|broadcasting)(\/|$)/;

/**
 * Every API and realtime-authorization answer to a signed-in session carries
 * `Cache-Control: no-store`: no browser or proxy keeps a copy of personal data or secrets (git
 * and database passwords, VPN keys, channel signatures), so Back after logout shows nothing.
 * Set before the route runs (an error answer keeps it) and again afterwards, where a route's
 * own value without no-store is replaced. Static assets and thumbnails keep their caching.
 * `always`: paths whose answers carry no-store without a session too (the server-to-server
 * paths, which load no session and answer certificates or database credentials).
 */
export function signedInNoStore(options: { always?: (path: string) => boolean } = {}): AppMiddleware {
  return async (ctx, next) => {
    const always = options.always?.(ctx.path) === true;
    if (!always && (!ctx.state.user || !PRIVATE_PATHS.test(ctx.path))) return next();
    ctx.set('Cache-Control', 'no-store');
    try {
      await next();
    } finally {
      const value = ctx.response.get('Cache-Control');
      if (!/\bno-store\b/.test(value)) ctx.set('Cache-Control', 'no-store');
    }
  };
}
