import Router from '@koa/router';
import { searchUsers as searchUsersEndpoint } from '@devplein/contract/http/user-search';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { mayFindInactiveUsers, maySeeCohortsInSearch } from '../../policies/user-search-policy.ts';
import { presentUserSearchHit } from '../../presenters/present-user-search.ts';
import { searchUsers } from '../../queries/users.ts';
import { handle } from '../handle.ts';

/**
 * POST /api/users/search {part, all?} (also ?all=true; contract/src/http/user-search.ts): people
 * by name or e-mail, case-insensitive "contains" with the LIKE wildcards taken literally. At most
 * 20 hits: names that start with the part first, then alphabetical. Not-activated and disabled
 * accounts only for an admin who asks `all`. Hits are [{id, name}]; admins also get `group` and
 * `active`. Empty or whitespace-only part, or more than 100 characters → 422 on `part`.
 */
export function userSearchRoutes(deps: AppDeps): AppRouter {
  const router: AppRouter = new Router();
  const { knex } = deps;

  handle(router, searchUsersEndpoint, async (_ctx, { caller: user, query, body }) => {
    const includeInactive = mayFindInactiveUsers(user, (query.all ?? false) || (body.all ?? false));
    const rows = await searchUsers(knex, body.part, includeInactive);
    return rows.map((row) => presentUserSearchHit(row, maySeeCohortsInSearch(user)));
  });

  return router;
}
