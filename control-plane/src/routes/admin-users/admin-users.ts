import Router from '@koa/router';
import { changeUserState, deleteAdminUser, listAdminUsers, setDeveloperFlag } from '@devplein/contract/http/admin-users';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { notFound, serviceUnavailable } from '../../errors.ts';
import { authorizeActionOnAccount } from '../../policies/admin-user-policy.ts';
import { presentAdminUser } from '../../presenters/present-admin-user.ts';
import { adminUserRows } from '../../queries/users.ts';
import { activateUser } from '../../commands/activate-user.ts';
import { disableUser } from '../../commands/disable-user.ts';
import { deleteUser } from '../../commands/delete-user.ts';
import { setDeveloper } from '../../commands/set-developer.ts';
import { applyUserAccess } from '../../commands/apply-user-access.ts';
import { handle } from '../handle.ts';

const UNKNOWN_USER = 'Deze gebruiker bestaat niet.';

/**
 * Routes of the users admin (contract/src/http/admin-users.ts; spec §2 Users, §4 user activation, §7), admin flag only:
 * - GET /api/admin/users: every user `{id, name, email, group: {id, cohort}|null,
 *   email_verified_at, disabled_at, developer, access_not_done}` in one query, ordered by name;
 *   the page filters itself.
 * - PUT /api/admin/users/{id}?action=verify|disable: verify activates (and lifts a disable);
 *   disable signs the user out everywhere and blocks sign-in until verified again. Disabling
 *   oneself: 403.
 * - PUT /api/admin/users/{id}/developer `{developer: boolean}` (beyond the spec: until now only
 *   the seed or SQL could): sets or clears the developer flag; clearing it signs the user out
 *   everywhere. Clearing one's own: 403.
 *   After each of these the user's access on the dev servers follows their flags
 *   (applyUserAccess: databases locked or unlocked, VPN peer removed or restored, SSH keys and
 *   sessions; a revocation stops the containers of projects where they are the only member).
 *   The answer is the updated user; `access_not_done` says in Dutch what a dev server did not
 *   do yet (retried by itself), null when all is done. The account change stands either way.
 * - DELETE /api/admin/users/{id}: 204, or 200 `{message}` when an agent is too old to end their
 *   SSH sessions (retried). DECISION (see commands/delete-user.ts): the delete cascades through
 *   the agents — databases, VPN configuration and projects in which the user is the only member
 *   are removed; shared projects lose this member, their keys and sessions. A dev server that
 *   does not answer: 503 naming what is left, the user stays (disabled). Deleting oneself: 403.
 * Every account write records its audit entry in the same transaction. Unknown id: 404.
 */
export function adminUserRoutes(deps: AppDeps): AppRouter {
  const { knex } = deps;
  const hostAccess = { knex, agents: deps.agents, logger: deps.logger.child({ component: 'host-access' }), locks: deps.services.locks };
  const router: AppRouter = new Router();

  handle(router, listAdminUsers, async () => (await adminUserRows(knex)).map((row) => presentAdminUser(row)));

  handle(router, changeUserState, async (ctx, { caller: actor, params: { id }, query: { action } }) => {
    if (action === 'disable') authorizeActionOnAccount(actor, id, 'disable');
    const updated = action === 'verify' ? await activateUser(knex, actor.id, id) : await disableUser(knex, actor.id, id);
    if (!updated) throw notFound(UNKNOWN_USER);
    const access = await applyUserAccess(hostAccess, id, { actorId: actor.id, reason: `user.${action}`, stopSoleContainers: action === 'disable' });
    ctx.state.log.info({ userId: id, action, accessComplete: access.complete }, 'admin changed account state');
    return presentAdminUser(updated, access.notDone);
  });

  handle(router, setDeveloperFlag, async (ctx, { caller: actor, params: { id }, body: { developer } }) => {
    if (!developer) authorizeActionOnAccount(actor, id, 'developer-off');
    const updated = await setDeveloper(knex, actor.id, id, developer);
    if (!updated) throw notFound(UNKNOWN_USER);
    const access = await applyUserAccess(hostAccess, id, { actorId: actor.id, reason: 'user.developer', stopSoleContainers: !developer });
    ctx.state.log.info({ userId: id, developer, accessComplete: access.complete }, 'admin changed the developer flag');
    return presentAdminUser(updated, access.notDone);
  });

  handle(router, deleteAdminUser, async (ctx, { caller: actor, params: { id } }) => {
    authorizeActionOnAccount(actor, id, 'delete');
    const result = await deleteUser({ ...hostAccess, secrets: deps.secrets }, actor.id, id);
    if (result.outcome === 'missing') throw notFound(UNKNOWN_USER);
    if (result.outcome === 'unfinished') throw serviceUnavailable(result.message);
    ctx.state.log.info({ userId: id, complete: result.notDone === null }, 'admin deleted user');
    if (result.notDone !== null) return { message: `De gebruiker is verwijderd. ${result.notDone}` };
    ctx.status = 204;
    return undefined;
  });

  return router;
}
