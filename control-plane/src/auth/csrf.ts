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
    if (SAFE_METHODS.has(ctx.method) || options.exempt(ctx.path)) {
      // Reads make no token: a cookieless API or image request must not create a session row.
      // The page render (spa.ts) makes one; keep the cookie in step with it afterwards.
      await next();
      const token = ctx.session?.csrf;
      if (typeof token === 'string' && ctx.cookies.get(CSRF_COOKIE) !== token) setCsrfCookie(ctx, token, options.secureCookie);
      return;
    }
    const token = typeof ctx.session?.csrf === 'string' ? (ctx.session.csrf as string) : undefined;
    const given = ctx.get('X-CSRF-TOKEN') || ctx.get('X-XSRF-TOKEN') || undefined;
    if (!token || !sameToken(token, given)) throw csrfMismatch();
    await next();
  };
}

function setCsrfCookie(ctx: AppContext, token: string, secure: boolean): void {
  ctx.cookies.set(CSRF_COOKIE, token, { httpOnly: false, sameSite: 'lax', secure, signed: false, overwrite: true });
}
