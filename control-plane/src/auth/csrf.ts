import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { AppContext, AppMiddleware } from '../app-context.ts';
import { csrfMismatch } from '../errors.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
export const CSRF_COOKIE = 'XSRF-TOKEN';

/** The session's CSRF token, made on first use. */
export function csrfTokenOf(ctx: AppContext): string {
  const session = ctx.session;
  if (!session) throw new Error('session middleware must run before csrf');
  if (typeof session.csrf !== 'string') session.csrf = randomBytes(32).toString('base64url');
  return session.csrf as string;
}

function sameToken(expected: string, given: string | undefined): boolean {
  if (!given) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Double protection against cross-site requests: every unsafe method must echo the session's
 * token in X-CSRF-TOKEN or X-XSRF-TOKEN (the token also lives in the XSRF-TOKEN cookie for
 * clients that read it from there). Paths in `exempt` are other protocols' own endpoints.
 */
export function csrfProtection(options: { exempt: (path: string) => boolean; secureCookie: boolean }): AppMiddleware {
  return async (ctx, next) => {
    const token = csrfTokenOf(ctx);
    if (ctx.cookies.get(CSRF_COOKIE) !== token) {
      ctx.cookies.set(CSRF_COOKIE, token, {
        httpOnly: false,
        sameSite: 'lax',
        secure: options.secureCookie,
        signed: false,
        overwrite: true,
      });
    }
    if (!SAFE_METHODS.has(ctx.method) && !options.exempt(ctx.path)) {
      const given = ctx.get('X-CSRF-TOKEN') || ctx.get('X-XSRF-TOKEN') || undefined;
      if (!sameToken(token, given)) throw csrfMismatch();
    }
    await next();
  };
}
