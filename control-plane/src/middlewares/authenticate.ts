import type { Knex } from 'knex';
import type { AppContext, AppMiddleware } from '../http-context.ts';
import { loadCurrentUser, type CurrentUser } from '../queries/current-user.ts';
import { notVerified, unauthenticated } from '../errors.ts';
import { isVerified } from '../policies/roles.ts';
import type { IdentityCache } from '../auth/identity-cache.ts';

/**
 * Loads the session's user through the identity cache, which every write to the user, its
 * group or teams invalidates before the writer's answer is sent: an admin's change (disable,
 * flags, groups) takes effect at the next request. A session of a deleted or disabled user is ended.
 */
export function loadUser(knex: Knex, cache: IdentityCache): AppMiddleware {
  return async (ctx, next) => {
    const userId = ctx.session?.userId;
    if (typeof userId === 'number') {
      const user = await cache.user(userId, () => loadCurrentUser(knex, userId));
      if (user && !user.disabled_at) ctx.state.user = user;
      else ctx.session = null;
    }
    await next();
  };
}

/** The signed-in user, or 401. */
export function signedInUser(ctx: AppContext): CurrentUser {
  const user = ctx.state.user;
  if (!user) throw unauthenticated();
  return user;
}

/** The signed-in and activated user, or 401/403. Every API route but GET /api/user uses this. */
export function activeUser(ctx: AppContext): CurrentUser {
  const user = signedInUser(ctx);
  if (!isVerified(user)) throw notVerified();
  return user;
}
