import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import type { AppMiddleware, AppState } from '../app-context.ts';
import type { SessionData } from './session-store.ts';

/** Where sessions live between requests (session-store.ts: the `sessions` table behind the identity cache). */
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

/** `ctx.session`: the session's data, plus `regenerate()` to give it a new id at sign-in. */
export type RequestSession = SessionData & {
  /** The session gets a new id when this request ends; the old id's row is removed. */
  regenerate(): Promise<void>;
};

declare module 'koa' {
  interface DefaultContext {
    /** This request's session; null after `ctx.session = null` (signed out, or ended). */
    session: RequestSession | null;
  }
}

const SESSION = Symbol('devplein session');

/**
 * One request's session. Changes are seen by the proxy's traps (a property set or deleted), not
 * by serialising and hashing the data twice per request as koa-session did (13 % of a signed-in
 * request's time, bench/README.md). Values are replaced, never changed in place: the code that
 * writes the session (sign-in, grant, CSRF, touchSession) assigns its properties.
 */
class RequestSessionState implements ProxyHandler<SessionData> {
  /** The id of the row this session was read from or will be written to. */
  id: string | undefined;
  private data: SessionData | undefined;
  private view: RequestSession | undefined;
  changed = false;
  ended = false;
  regenerating = false;

  constructor(id: string | undefined, data: SessionData | undefined) {
    this.id = id;
    this.data = data;
  }

  session(): RequestSession | null {
    if (this.ended) return null;
    if (!this.view) {
      const target = this.data ?? {};
      this.data = target;
      // Not enumerable: neither stored nor copied.
      Object.defineProperty(target, 'regenerate', { value: () => this.askRegenerate(), enumerable: false });
      this.view = new Proxy(target, this) as RequestSession;
    }
    return this.view;
  }

  replace(value: unknown): void {
    if (value === null) {
      this.ended = true;
      return;
    }
    if (typeof value !== 'object') throw new TypeError('ctx.session can only be set to null or an object.');
    this.ended = false;
    this.data = { ...(value as SessionData) };
    this.view = undefined;
    this.changed = true;
  }

  /** A plain copy of the data, as the store keeps it. */
  snapshot(): SessionData {
    return { ...this.data };
  }

  isEmpty(): boolean {
    return !this.data || Object.keys(this.data).length === 0;
  }

  set(target: SessionData, key: string | symbol, value: unknown): boolean {
    this.changed = true;
    return Reflect.set(target, key, value);
  }

  deleteProperty(target: SessionData, key: string | symbol): boolean {
    this.changed = true;
    return Reflect.deleteProperty(target, key);
  }

  private askRegenerate(): Promise<void> {
    this.regenerating = true;
    return Promise.resolve();
  }
}

type SessionContext = Koa.ParameterizedContext<AppState> & { [SESSION]?: RequestSessionState };

/**
 * The session middleware: reads the signed id cookie and the session through the store, gives the
 * request `ctx.session`, and when the request is done writes the row only when the data changed
 * (sign-in, the last-seen refresh at most once a minute, a CSRF token made), or removes it
 * (`ctx.session = null`). An empty new session is never written: an anonymous page view makes no
 * row. An id the store does not know is never reused: a session made afterwards gets a fresh one.
 */
export function sessions(app: Koa<AppState>, store: SessionStore, cookie: SessionCookie): AppMiddleware {
  const setOptions = { maxAge: cookie.maxAgeMs, httpOnly: true, sameSite: 'lax', secure: cookie.secure, signed: true, overwrite: true } as const;
  const clearOptions = { expires: new Date(0), httpOnly: true, sameSite: 'lax', secure: cookie.secure, signed: true, overwrite: true } as const;

  Object.defineProperty(app.context, 'session', {
    get(this: SessionContext) {
      return this[SESSION]?.session() ?? null;
    },
    set(this: SessionContext, value: unknown) {
      const state = this[SESSION];
      if (!state) throw new Error('ctx.session is used before the session middleware ran.');
      state.replace(value);
    },
    configurable: true,
  });

  const commit = async (ctx: SessionContext, state: RequestSessionState): Promise<void> => {
    if (state.ended) {
      if (state.id) await store.destroy(state.id);
      ctx.cookies.set(cookie.name, '', clearOptions);
      return;
    }
    if (state.regenerating) {
      if (state.id) await store.destroy(state.id);
      state.id = undefined;
    } else if (!state.changed) return;
    if (!state.id) {
      if (state.isEmpty()) return;
      state.id = randomUUID();
    }
    await store.set(state.id, state.snapshot());
    ctx.cookies.set(cookie.name, state.id, setOptions);
  };

  return async (ctx, next) => {
    const id = ctx.cookies.get(cookie.name, { signed: true });
    const data = id ? await store.get(id) : undefined;
    const state = new RequestSessionState(data ? id : undefined, data);
    (ctx as SessionContext)[SESSION] = state;
    try {
      await next();
    } finally {
      await commit(ctx as SessionContext, state);
    }
  };
}
