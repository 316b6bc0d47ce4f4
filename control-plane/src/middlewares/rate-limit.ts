import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { AppContext, AppMiddleware } from '../http-context.ts';

const UNSAFE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The start of sign-in: `/auth/{provider}` (not its callback), where each hit starts a new login at the provider. */
export const isSignInStart = (path: string): boolean => /^\/auth\/[^/]+\/?$/.test(path);

export const signInLimitMessage = (seconds: number): string =>
  `Te veel inlogpogingen vanaf dit adres. Wacht ${seconds} ${seconds === 1 ? 'seconde' : 'seconden'} en probeer het dan opnieuw.`;
export const writeLimitMessage = (seconds: number): string =>
  `Je voert te veel wijzigingen kort na elkaar uit. Wacht ${seconds} ${seconds === 1 ? 'seconde' : 'seconden'} en probeer het dan opnieuw.`;

export interface RateLimitOptions {
  /** Requests allowed per window per key; 0 turns the limit off. */
  points: number;
  /** Window length in seconds (default 60). */
  durationSeconds?: number;
}

/**
 * One in-memory limiter (one control-plane process; a second process would need a shared
 * store). Resolves to null when the request may go on, or to the seconds to wait.
 */
export function limiter(options: RateLimitOptions): ((key: string) => Promise<number | null>) | null {
  if (options.points <= 0) return null;
  const memory = new RateLimiterMemory({ points: options.points, duration: options.durationSeconds ?? 60 });
  return async (key) => {
    try {
      await memory.consume(key);
      return null;
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw rejection;
    }
  };
}

/** 429 with Retry-After: JSON for the API and the web app's fetches, plain text for a page navigation. */
function tooMany(ctx: AppContext, seconds: number, message: string): void {
  ctx.status = 429;
  ctx.set('Retry-After', String(seconds));
  ctx.set('Cache-Control', 'no-store');
  const wantsJson = ctx.path.startsWith('/api/') || ctx.get('X-Requested-With') === 'XMLHttpRequest' || ctx.accepts('html', 'json') === 'json';
  if (wantsJson) {
    ctx.body = { message, retryAfter: seconds };
  } else {
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = message;
  }
  ctx.state.log.warn({ path: ctx.path, method: ctx.method, retryAfter: seconds }, 'rate limit reached');
}

/**
 * Limits sign-in starts per client address (ctx.ip: the socket's address, or X-Forwarded-For's
 * when TRUST_PROXY is on; Koa decides). A school behind one NAT shares an address, so keep the
 * number generous: it is there against scripted floods of the provider, not against a class.
 */
export function signInRateLimit(options: RateLimitOptions & { isSignInStart?: (path: string) => boolean }): AppMiddleware {
  const take = limiter(options);
  const matches = options.isSignInStart ?? isSignInStart;
  return async (ctx, next) => {
    if (!take || !matches(ctx.path)) return next();
    const wait = await take(`signin:${ctx.ip}`);
    if (wait !== null) return tooMany(ctx, wait, signInLimitMessage(wait));
    return next();
  };
}

/**
 * Limits unsafe API requests (POST, PUT, PATCH, DELETE under /api/) per signed-in user; runs
 * after loadUser and after the CSRF check. Realtime channel authorization (/broadcasting, one
 * POST per subscribed container) is not a write and is not counted. Requests without a user are not counted here: they fail on CSRF or on
 * authentication anyway. The bulk level forms send one request for a whole category, so even a
 * teacher changing 400 students' levels stays far below a generous limit.
 */
export function writeRateLimit(options: RateLimitOptions): AppMiddleware {
  const take = limiter(options);
  return async (ctx, next) => {
    const user = ctx.state.user;
    if (!take || !user || !UNSAFE_METHODS.has(ctx.method) || !ctx.path.startsWith('/api/')) return next();
    const wait = await take(`user:${user.id}`);
    if (wait !== null) return tooMany(ctx, wait, writeLimitMessage(wait));
    return next();
  };
}
