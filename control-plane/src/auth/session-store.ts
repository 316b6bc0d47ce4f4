import type { Knex } from 'knex';
import type { AppMiddleware } from '../http-context.ts';
import type { CachedSession, IdentityCache } from './identity-cache.ts';

/** The session data we keep; koa-session adds its own `_expire`/`_maxAge` (rows written 2026-11-29 to 12-01 lack them). */
export interface SessionData {
  userId?: number;
  csrf?: string;
  /** The provider's id_token of this sign-in: the id_token_hint of the logout at the provider. */
  idToken?: string;
  /** When the user signed in (ms since the epoch): the absolute lifetime counts from here. */
  signedInAt?: number;
  /** Last request seen, refreshed at most every `seenRefreshMs`: the idle timeout counts from here. */
  seenAt?: number;
  [key: string]: unknown;
}

/** How long sessions live (config: SESSION_MAX_AGE_HOURS, SESSION_IDLE_TIMEOUT_MINUTES). */
export interface SessionLimits {
  maxAgeMs: number;
  idleMs: number;
}

/**
 * How often a signed-in session's last-seen time is written: once a minute, or a tenth of the
 * idle timeout when that is shorter (tests). Not on every request: a signed-in request should
 * cost one read of the session, no write.
 */
export const seenRefreshMs = (limits: SessionLimits): number => Math.min(60_000, limits.idleMs / 10);

/**
 * When a session ends (ms since the epoch). Signed in: the earlier of sign-in + the absolute
 * lifetime and last seen + the idle timeout. Not signed in (a sign-in in progress keeps grant's
 * state, PKCE verifier and nonce here): the idle timeout from now, so abandoned starts go soon.
 */
export function sessionExpiry(data: SessionData, limits: SessionLimits, now: number): number {
  const idleEnd = limits.maxAgeMs < limits.idleMs ? limits.maxAgeMs : limits.idleMs;
  if (typeof data.userId !== 'number') return now + idleEnd;
  const seenAt = typeof data.seenAt === 'number' ? data.seenAt : now;
  const signedInAt = typeof data.signedInAt === 'number' ? data.signedInAt : seenAt;
  return Math.min(signedInAt + limits.maxAgeMs, seenAt + limits.idleMs);
}

/**
 * koa-session's external store (session-middleware.ts) on the `sessions` table (plain knex: get runs on every request, and
 * the upsert needs onConflict; the Session model serves the set-based deletes of commands/destroy-sessions.ts). The user id is a column of its own so that
 * disabling a user can delete all of that user's sessions at once (signed out everywhere).
 * `expires_at` is the session's end by `sessionExpiry` (idle and absolute), so a session past
 * either is never read again and the pruning timer removes it. Reads go through the identity
 * cache (a row changes only by set/destroy here or by a write another process announces).
 */
export function createSessionStore(knex: Knex, limits: SessionLimits, cache: IdentityCache, clock: () => number = Date.now) {
  const load = async (key: string): Promise<CachedSession | null> => {
    const row = await knex('sessions')
      .select('data', 'expires_at')
      .where({ id: key })
      .first<{ data: SessionData | string; expires_at: Date | string } | undefined>();
    if (!row) return null;
    const data = typeof row.data === 'string' ? (JSON.parse(row.data) as SessionData) : row.data;
    return { data, expiresAt: new Date(row.expires_at).getTime() };
  };
  return {
    async get(key: string): Promise<SessionData | undefined> {
      const session = await cache.session(key, () => load(key));
      if (!session || session.expiresAt <= clock()) return undefined;
      // The request changes what it gets, inside values too: a deep copy, never the cached one.
      return structuredClone(session.data);
    },
    async set(key: string, data: SessionData): Promise<void> {
      const expiresAt = new Date(sessionExpiry(data, limits, clock()));
      const userId = typeof data.userId === 'number' ? data.userId : null;
      await knex('sessions')
        .insert({ id: key, user_id: userId, data: JSON.stringify(data), expires_at: expiresAt })
        .onConflict('id')
        .merge(['user_id', 'data', 'expires_at']);
      cache.sessionEnded(key);
    },
    async destroy(key: string): Promise<void> {
      await knex('sessions').where({ id: key }).delete();
      cache.sessionEnded(key);
    },
  };
}

/**
 * Keeps a signed-in session's last-seen time, written at most every `seenRefreshMs` (koa-session
 * saves the row only when the data changed). Sessions from before these times were kept get
 * them now.
 */
export function touchSession(limits: SessionLimits, clock: () => number = Date.now): AppMiddleware {
  const refreshMs = seenRefreshMs(limits);
  return async (ctx, next) => {
    const session = ctx.session as SessionData | null;
    if (session && typeof session.userId === 'number') {
      const now = clock();
      if (typeof session.seenAt !== 'number' || now - session.seenAt >= refreshMs) session.seenAt = now;
      if (typeof session.signedInAt !== 'number') session.signedInAt = now;
    }
    await next();
  };
}
