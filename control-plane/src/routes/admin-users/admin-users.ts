import Router from '@koa/router';
import type { AppRouter } from '../../app-context.ts';
import type { AppDeps } from '../../app.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { parseInput } from '../../middlewares/validate.ts';
import { HttpError, notFound } from '../../errors.ts';
import { authorizeActionOnAccount, authorizeUserManagement } from '../../policies/admin-user-policy.ts';
import { presentAdminUser } from '../../presenters/present-admin-user.ts';
import { adminUserRows } from '../../commands/admin-user-rows.ts';
import { activateUser } from '../../commands/activate-user.ts';
import { disableUser } from '../../commands/disable-user.ts';
import { deleteUser } from '../../commands/delete-user.ts';
import { userActionQuery, userIdParams } from './schema.ts';

const UNKNOWN_USER = 'Deze gebruiker bestaat niet.';

/**
 * Routes of the users admin (spec §2 Users, §4 user activation, §7), admin flag only:
 * - GET /api/admin/users: every user `{id, name, email, group: {id, cohort}|null,
 *   email_verified_at, disabled_at}` in one query, ordered by name; the page filters itself.
 * - PUT /api/admin/users/{id}?action=verify|disable: verify activates (and lifts a disable);
 *   disable signs the user out everywhere and blocks sign-in until verified again. Answers the
 *   updated user. Disabling oneself: 403.
 * - DELETE /api/admin/users/{id}: 204. DECISION: refused with 409 `{message, resources}` while
 *   the user still has host resources — projects in which they are the only member, databases,
 *   a VPN config — because those live on the dev server and must be removed through the agent
 *   first (the containers, databases and VPN screens do that); nothing is left orphaned. Without
 *   them, the user is deleted with everything that only lives in our database (SSH keys, levels,
 *   licences, memberships; shared projects stay, minus this member). Deleting oneself: 403.
 * Every write records its audit entry in the same transaction. Unknown id: 404.
 */
export function adminUserRoutes(deps: AppDeps): AppRouter {
  const { knex } = deps;
  const router: AppRouter = new Router();

  router.get('/api/admin/users', async (ctx) => {
    authorizeUserManagement(activeUser(ctx));
    ctx.body = (await adminUserRows(knex)).map(presentAdminUser);
  });

  router.put('/api/admin/users/:id', async (ctx) => {
    const actor = activeUser(ctx);
    authorizeUserManagement(actor);
    const { id } = parseInput(ctx, userIdParams, 'params');
    const { action } = parseInput(ctx, userActionQuery, 'query');
    if (action === 'disable') authorizeActionOnAccount(actor, id, 'disable');
    const updated = action === 'verify' ? await activateUser(knex, actor.id, id) : await disableUser(knex, actor.id, id);
    if (!updated) throw notFound(UNKNOWN_USER);
    ctx.state.log.info({ userId: id, action }, 'admin changed account state');
    ctx.body = presentAdminUser(updated);
  });

  router.delete('/api/admin/users/:id', async (ctx) => {
    const actor = activeUser(ctx);
    authorizeUserManagement(actor);
    const { id } = parseInput(ctx, userIdParams, 'params');
    authorizeActionOnAccount(actor, id, 'delete');
    const result = await deleteUser(knex, actor.id, id);
    if (result.outcome === 'missing') throw notFound(UNKNOWN_USER);
    if (result.outcome === 'refused') throw new HttpError(409, result.message, { resources: result.resources });
    ctx.state.log.info({ userId: id }, 'admin deleted user');
    ctx.status = 204;
  });

  return router;
}
