import Router from '@koa/router';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { forbidden } from '../../errors.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { parseInput } from '../../middlewares/validate.ts';
import { mayFindInactiveUsers, maySearchUsers, maySeeCohortsInSearch } from '../../policies/user-search-policy.ts';
import { presentUserSearchHit } from '../../presenters/present-user-search.ts';
import { searchUsers } from '../../queries/users.ts';
import { userSearchInput, userSearchQuery } from './schema.ts';

/**
 * POST /api/users/search {part, all?} (also ?all=true; spec §7): people by name or e-mail,
 * case-insensitive "contains" with the LIKE wildcards taken literally. For every activated
 * user (students pick project members with it). At most 20 hits: names that start with the
 * part first, then alphabetical. Not-activated and disabled accounts only for an admin who
 * asks `all`. Hits are [{id, name}]; admins also get `group` and `active`.
 * Empty or whitespace-only part, or more than 100 characters → 422 on `part`.
 */
export function userSearchRoutes(deps: AppDeps): AppRouter {
  const router: AppRouter = new Router();
  const { knex } = deps;

  router.post('/api/users/search', async (ctx) => {
    const user = activeUser(ctx);
    if (!maySearchUsers(user)) throw forbidden();
    const query = parseInput(ctx, userSearchQuery, 'query');
    const input = parseInput(ctx, userSearchInput, 'body');
    const includeInactive = mayFindInactiveUsers(user, (query.all ?? false) || (input.all ?? false));
    const forAdmin = maySeeCohortsInSearch(user);

    const rows = await searchUsers(knex, input.part, includeInactive);
    ctx.body = rows.map((row) => presentUserSearchHit(row, forAdmin));
  });

  return router;
}
