import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AppContext, AppMiddleware } from '../http-context.ts';
import { csrfMismatch } from '../errors.ts';
import type { SessionData } from './session-store.ts';

const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);
export const CSRF_COOKIE = 'XSRF-TOKEN';

/** A new random session token: what a session gets at sign-in (the anonymous token is dropped then). */
export function renewSessionCsrf(session: SessionData): string {
  session.csrf = randomBytes(32).toString('base64url');
  return session.csrf;
}

function sameToken(expected: string, given: string | undefined): boolean {
  if (!given) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface Csrf {
  /**
   * The token a page gets (meta tag and XSRF-TOKEN cookie): a session's own token (made on
   * first use) for a session that has one or is signed in; otherwise a stateless signed token,
   * so an anonymous page view writes no session row.
   */
  pageToken(ctx: AppContext): string;
  /**
   * Every unsafe method must echo the token in X-CSRF-TOKEN or X-XSRF-TOKEN, else 419. Paths in
   * `exempt` are other protocols' own endpoints.
   */
  middleware(options: { exempt: (path: string) => boolean }): AppMiddleware;
}

/**
 * CSRF tokens of two kinds. A session's token: random, kept in the session row, checked against
 * it. Without a session token (anonymous visitors, a sign-in in progress): `random.signature`,
 * an HMAC of the random part under the session secret, kept in the XSRF-TOKEN cookie; an unsafe
 * request passes when its header equals that cookie and the signature holds. It depends on no
 * session id or other value a stranger could plant, and a stranger's page cannot set the header
 * on a cross-site request in the first place. At sign-in the session gets its own token, and
 * the anonymous one no longer counts for it.
 */
export function createCsrf(options: { secret: string; secureCookie: boolean }): Csrf {
  const sign = (random: string): string => createHmac('sha256', options.secret).update(`devplein-csrf-anonymous:${random}`).digest('base64url');
  const mintAnonymous = (): string => {
    const random = randomBytes(24).toString('base64url');
    return `${random}.${sign(random)}`;
  };
  const validAnonymous = (token: string | undefined): token is string => {
    if (!token) return false;
    const [random, signature, ...rest] = token.split('.');
    return rest.length === 0 && Boolean(random) && sameToken(sign(random ?? ''), signature);
  };
  const setCookie = (ctx: AppContext, token: string): void => {
    ctx.cookies.set(CSRF_COOKIE, token, { httpOnly: false, sameSite: 'lax', secure: options.secureCookie, signed: false, overwrite: true });
  };
  const sessionToken = (ctx: AppContext): string | undefined => {
    const session = ctx.session as SessionData | null;
    return typeof session?.csrf === 'string' ? session.csrf : undefined;
  };

  return {
    pageToken(ctx) {
      const session = ctx.session as SessionData | null;
      if (session && (typeof session.csrf === 'string' || typeof session.userId === 'number')) {
        return typeof session.csrf === 'string' ? session.csrf : renewSessionCsrf(session);
      }
      const current = ctx.cookies.get(CSRF_COOKIE);
      if (validAnonymous(current)) return current;
      const token = mintAnonymous();
      setCookie(ctx, token);
      return token;
    },
    middleware({ exempt }) {
      return async (ctx, next) => {
        if (SAFE_METHODS.has(ctx.method) || exempt(ctx.path)) {
          // Reads make no token (a cookieless API or image request must not create a session
          // row); keep the cookie in step with a session token made during this request.
          await next();
          const token = sessionToken(ctx);
          if (token !== undefined && ctx.cookies.get(CSRF_COOKIE) !== token) setCookie(ctx, token);
          return;
        }
        const given = ctx.get('X-CSRF-TOKEN') || ctx.get('X-XSRF-TOKEN') || undefined;
        const token = sessionToken(ctx);
        const passes = token !== undefined ? sameToken(token, given) : validAnonymous(given) && sameToken(given, ctx.cookies.get(CSRF_COOKIE));
        if (!passes) throw csrfMismatch();
        await next();
      };
    },
  };
}
