import type Koa from 'koa';
import type Router from '@koa/router';
import type { Logger } from 'pino';
import type { CurrentUser } from './queries/current-user.ts';

/*
 * What a request carries through the middleware and the routes. Kept apart from app-context.ts
 * (what the app is built from, which names auth/'s services), so auth/ and middlewares/ can use
 * these without a circle through app-context.ts.
 */

/** What middleware puts on ctx.state for the rest of a request. */
export interface AppState {
  requestId: string;
  log: Logger;
  /** The signed-in user (through the identity cache, invalidated by every write); null when signed out. */
  user: CurrentUser | null;
  /** Input parsed and validated by the validate middleware. */
  input: unknown;
  /** grant's per-request state (its dynamic overrides). */
  grant?: Record<string, unknown>;
}

export type AppContext = Koa.ParameterizedContext<AppState, Koa.DefaultContext>;
export type AppRouter = Router<AppState, Koa.DefaultContext>;
export type AppMiddleware = Koa.Middleware<AppState, Koa.DefaultContext>;
