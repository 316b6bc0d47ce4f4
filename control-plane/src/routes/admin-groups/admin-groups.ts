import Router from '@koa/router';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { addGroupMember } from '../../commands/add-group-member.ts';
import { createGroup } from '../../commands/create-group.ts';
import { removeGroupMember } from '../../commands/remove-group-member.ts';
import { notFound } from '../../errors.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { parseInput } from '../../middlewares/validate.ts';
import { authorizeGroupManagement } from '../../policies/group-policy.ts';
import { presentGroup } from '../../presenters/present-group.ts';
import { presentMember } from '../../presenters/present-team.ts';
import { findGroup, groupMemberRows, listGroups } from '../../queries/groups.ts';
import { groupIdParams, groupInput, groupListQuery, groupMemberInput, groupMemberParams } from './schema.ts';

/**
 * Routes of groups (cohorts; admin flag only; spec §2 Groups, §7). A user has at most one group.
 * - GET    /api/admin/groups?search=&counts=true   [{id, cohort}] by cohort, search = case-insensitive "contains";
 *                                                  counts=true adds member_count (the levels page's selector uses the plain shape)
 * - GET    /api/admin/groups/{id}                  the members [{id, name, email, group}] by name
 * - PUT    /api/admin/groups/{id}                  {user}: puts the user in this group (moving them out of their
 *                                                  old one); answers the members. Audit group.add-member (before/after group).
 * - DELETE /api/admin/groups/{id}/users/{userId}   takes the user out of this group (group becomes none); answers the
 *                                                  members; 404 when the user is not in it. Audit group.remove-member.
 * - POST   /api/admin/groups                       {cohort} ^[A-Za-z0-9-]{2,20}$, stored in capitals, unique → 201 {id, cohort, member_count}.
 *                                                  Audit group.create.
 * Unknown group → 404; unknown user in a body → 422 on `user`.
 */
export function adminGroupRoutes(deps: AppDeps): AppRouter {
  const router: AppRouter = new Router();
  const { knex } = deps;

  router.get('/api/admin/groups', async (ctx) => {
    authorizeGroupManagement(activeUser(ctx));
    const { search, counts } = parseInput(ctx, groupListQuery, 'query');
    const rows = await listGroups(knex, search, counts === 'true' || counts === '1');
    ctx.body = rows.map(presentGroup);
  });

  router.post('/api/admin/groups', async (ctx) => {
    const actor = activeUser(ctx);
    authorizeGroupManagement(actor);
    const { cohort } = parseInput(ctx, groupInput, 'body');
    const group = await createGroup(knex, actor.id, cohort);
    ctx.status = 201;
    ctx.body = presentGroup({ ...group, member_count: 0 });
  });

  router.get('/api/admin/groups/:id', async (ctx) => {
    authorizeGroupManagement(activeUser(ctx));
    const { id } = parseInput(ctx, groupIdParams, 'params');
    const group = await findGroup(knex, id);
    if (!group) throw notFound('Deze groep bestaat niet.');
    ctx.body = (await groupMemberRows(knex, id)).map(presentMember);
  });

  router.put('/api/admin/groups/:id', async (ctx) => {
    const actor = activeUser(ctx);
    authorizeGroupManagement(actor);
    const { id } = parseInput(ctx, groupIdParams, 'params');
    const { user } = parseInput(ctx, groupMemberInput, 'body');
    ctx.body = (await addGroupMember(knex, actor.id, id, user)).map(presentMember);
  });

  router.delete('/api/admin/groups/:id/users/:userId', async (ctx) => {
    const actor = activeUser(ctx);
    authorizeGroupManagement(actor);
    const { id, userId } = parseInput(ctx, groupMemberParams, 'params');
    ctx.body = (await removeGroupMember(knex, actor.id, id, userId)).map(presentMember);
  });

  return router;
}
