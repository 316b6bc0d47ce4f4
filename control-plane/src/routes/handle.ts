/**
 * The server's side of a contract endpoint (contract/src/http): registers the route on the
 * router at the declared method and path, lets through only the declared callers (401/403 before
 * any input is read), parses params and query, and the body when the route reads it, with the
 * declared schemas (422 in Dutch, as parseInput does), and types the route's answer against the
 * declared response. What the route does stays its own: load → authorize (membership,
 * ownership) → act → present.
 */
import type { z } from 'zod';
import { isAdmin, isAdminDeveloper, isDeveloper } from '@devplein/contract/roles';
import type { Access, Endpoint, ParsedInput, ReplyOf } from '@devplein/contract/http/endpoint';
import type { AppContext, AppRouter } from '../app-context.ts';
import type { CurrentUser } from '../queries/current-user.ts';
import { activeUser, signedInUser } from '../middlewares/authenticate.ts';
import { parseInput } from '../middlewares/validate.ts';
import { forbidden } from '../errors.ts';

/** The caller an endpoint's access leaves: a user for every access that needs a session. */
export type CallerOf<E extends Endpoint> = E['access'] extends 'public' | 'machine' ? CurrentUser | null : CurrentUser;

export type RouteInput<E extends Endpoint> = ParsedInput<E> & { caller: CallerOf<E> };

/**
 * What a JSON route returns when it wrote the declared body itself: bytes compressed once for
 * every viewer (the site wall), or a 304 for a fresh ETag.
 */
export const WRITTEN: unique symbol = Symbol('written by the route');

/**
 * What the route's act step returns: the JSON body for a JSON answer (handle sets it), nothing
 * for streams, files and redirects (the route writes those itself), either for a file with a
 * JSON form (`?format=json`).
 */
export type RouteReply<E extends Endpoint> = E['answer'] extends { kind: 'json' }
  ? ReplyOf<E> | typeof WRITTEN
  : E['answer'] extends { kind: 'file'; json: z.ZodType }
    ? ReplyOf<E> | undefined
    : undefined | void;

/** The declared access, checked with the shared role rules; 401 signed out, 403 otherwise. */
export function admit(ctx: AppContext, access: Access, refusal?: string): CurrentUser | null {
  switch (access) {
    case 'public':
    case 'machine':
      return ctx.state.user ?? null;
    case 'signed-in':
      return signedInUser(ctx);
    case 'active':
      return activeUser(ctx);
    case 'developer':
    case 'admin':
    case 'admin-developer': {
      const user = activeUser(ctx);
      const allowed = access === 'developer' ? isDeveloper(user) : access === 'admin' ? isAdmin(user) : isAdminDeveloper(user);
      if (!allowed) throw forbidden(refusal);
      return user;
    }
  }
}

export interface HandleOptions<E extends Endpoint> {
  /**
   * The body parsed by the route's own step instead of the declared schema alone: for checks
   * that need what only the server knows (the dev servers' site domains, the school's git
   * policy). It answers the declared body's type, and a 422 like parseInput's.
   */
  parseBody?: (ctx: AppContext) => ParsedInput<E>['body'];
  /**
   * True for a request this declaration's path matches but another router serves (GET
   * /api/user/{id} and GET /api/user/ssh_keys): handed on before anything is checked.
   */
  passOver?: (ctx: AppContext) => boolean;
}

/** Registers `act` as the route of `declared`. */
export function handle<E extends Endpoint>(
  router: AppRouter,
  declared: E,
  act: (ctx: AppContext, input: RouteInput<E>) => Promise<RouteReply<E>>,
  options: HandleOptions<E> = {},
): void {
  const method = declared.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
  router[method](declared.path, async (ctx, next) => {
    if (options.passOver?.(ctx)) return next();
    const caller = admit(ctx, declared.access, declared.refusal);
    const params = declared.params ? parseInput(ctx, declared.params, 'params') : undefined;
    const query = declared.query ? parseInput(ctx, declared.query, 'query') : undefined;
    // The body is parsed when the route first reads it: a route that answers 404 for someone
    // else's resource reads it after its authorize step, so a stranger never learns more from a
    // 422 (destructuring `body` in the parameters reads it at once, before the route's own steps).
    let body: { value: unknown } | undefined;
    const readBody = (): unknown => (options.parseBody ? options.parseBody(ctx) : declared.body ? parseInput(ctx, declared.body, 'body') : undefined);
    const input = {
      caller,
      params,
      query,
      get body() {
        body ??= { value: readBody() };
        return body.value;
      },
    } as RouteInput<E>;
    const reply = await act(ctx, input);
    if (reply === WRITTEN) return;
    if (reply === null) {
      // koa answers 204 for a null body; a JSON answer that may be null is 200 with `null`.
      ctx.type = 'application/json';
      ctx.body = 'null';
    } else if (reply !== undefined) ctx.body = reply;
  });
}
