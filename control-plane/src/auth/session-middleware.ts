import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
// The named export: the server bundle takes koa-session's CommonJS build (scripts/lib/server-bundle.ts).
import { createSession } from 'koa-session';
import type { AppMiddleware, AppState } from '../http-context.ts';
import type { SessionData } from './session-store.ts';

/** koa-session's external store: where sessions live between requests (session-store.ts). */
export interface SessionStore {
  get(id: string): Promise<SessionData | undefined>;
  set(id: string, data: SessionData): Promise<void>;
  destroy(id: string): Promise<void>;
}

/** The session cookie: it carries only the session's id, signed with the app's keys. */
export interface SessionCookie {
  name: string;
  maxAgeMs: number;
  secure: boolean;
}

/** `ctx.session` as koa-session gives it: the data, and its own methods. */
export type RequestSession = SessionData & {
  /** Saves the data under a new id at once and removes the old id's row (sign-in). */
  regenerate(): Promise<void>;
};

declare module 'koa' {
  interface DefaultContext {
    /** This request's session (koa-session); null after `ctx.session = null` (signed out, or ended). */
    session: RequestSession | null;
  }
}

/**
 * koa-session with the store behind its external-store interface. What it does for us: the signed
 * id cookie (app.keys), the row written only when the data changed (it compares a hash of the
 * JSON, so a change inside a value counts too), no row for an empty new session (an anonymous
 * page view), `ctx.session = null` removing the row and clearing both cookies, and an id the
 * store does not know (or a wrong signature) never taken on: a fresh one from `genid` instead.
 * Neither rolling nor renew: the store derives each row's end from the sign-in and last-seen
 * times (touchSession), and a row is written at sign-in and at most once a minute after.
 */
export function sessions(app: Koa<AppState>, store: SessionStore, cookie: SessionCookie): AppMiddleware {
  return createSession(
    {
      key: cookie.name,
      maxAge: cookie.maxAgeMs,
      httpOnly: true,
      sameSite: 'lax',
      secure: cookie.secure,
      signed: true,
      overwrite: true,
      rolling: false,
      renew: false,
      // A uuid: the shape whose verified signatures app.keys remembers (cached-keygrip.ts).
      genid: () => randomUUID(),
      store,
    },
    app,
  ) as AppMiddleware;
}
