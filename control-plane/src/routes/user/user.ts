import Router from '@koa/router';
import type { Knex } from 'knex';
import { currentUser, userProfile } from '@devplein/contract/http/user';
import type { AppRouter } from '../../app-context.ts';
import { loadCurrentUser, type CurrentUser } from '../../queries/current-user.ts';
import { notFound } from '../../errors.ts';
import { presentCurrentUser, presentProfile } from '../../presenters/present-user.ts';
import { presentLevelProgress, type LevelCategoryProgressJson } from '../../presenters/present-level-categories.ts';
import { loadCategories, loadLevelStatuses } from '../../queries/levels.ts';
import type { IdentityCache } from '../../auth/identity-cache.ts';
import { handle } from '../handle.ts';

/**
 * Paths under /api/user/ that are resources of the signed-in user, served by other routers
 * (SSH keys, dockers, databases, projects). GET /api/user/{id} must not answer them with 422.
 */
const OWN_RESOURCE_SEGMENTS: ReadonlySet<string> = new Set(['ssh_keys', 'dockers', 'databases', 'project', 'container', 'dockers_images', 'licenses']);

/** Finished levels per category of a user (the profile's '{title} afgerond' lines). */
async function levelProgressOf(knex: Knex, user: CurrentUser): Promise<LevelCategoryProgressJson[]> {
  // Independent reads: in parallel.
  const [levels, categories] = await Promise.all([loadLevelStatuses(knex, user.id), loadCategories(knex)]);
  return presentLevelProgress(categories, levels, user.group?.cohort ?? null);
}

/** The same for the signed-in user, through the identity cache: /api/user runs on every page load. */
async function ownLevelProgress(deps: { knex: Knex; identity: IdentityCache }, user: CurrentUser): Promise<LevelCategoryProgressJson[]> {
  const [levels, categories] = await Promise.all([
    deps.identity.levelStatuses(user.id, () => loadLevelStatuses(deps.knex, user.id)),
    deps.identity.categories(() => loadCategories(deps.knex)),
  ]);
  return presentLevelProgress(categories, levels, user.group?.cohort ?? null);
}

/** GET /api/user (who am I) and GET /api/user/{id} (someone's profile): contract/src/http/user.ts. */
export function userRoutes(deps: { knex: Knex; identity: IdentityCache }): AppRouter {
  const router: AppRouter = new Router();

  handle(router, currentUser, async (_ctx, { caller }) => presentCurrentUser(caller, await ownLevelProgress(deps, caller)));

  handle(
    router,
    userProfile,
    async (_ctx, { caller: viewer, params: { id } }) => {
      const subject = await loadCurrentUser(deps.knex, id);
      // Accounts that are not (or no longer) active are not shown to other students.
      const inactive = subject !== null && (subject.email_verified_at === null || subject.disabled_at !== null);
      const hidden = inactive && !viewer.admin && subject.id !== viewer.id;
      if (!subject || hidden) throw notFound();
      return presentProfile(subject, await levelProgressOf(deps.knex, subject));
    },
    { passOver: (ctx) => OWN_RESOURCE_SEGMENTS.has(ctx.params.id ?? '') },
  );

  return router;
}
