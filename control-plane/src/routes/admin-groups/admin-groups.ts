import Router from '@koa/router';
import {
  addGroupMember as addGroupMemberEndpoint,
  createGroup as createGroupEndpoint,
  groupMembers,
  listGroups as listGroupsEndpoint,
  removeGroupMember as removeGroupMemberEndpoint,
} from '@devplein/contract/http/admin-groups';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { addGroupMember } from '../../commands/add-group-member.ts';
import { createGroup } from '../../commands/create-group.ts';
import { removeGroupMember } from '../../commands/remove-group-member.ts';
import { notFound } from '../../errors.ts';
import { presentGroup } from '../../presenters/present-group.ts';
import { presentMember } from '../../presenters/present-team.ts';
import { findGroup, groupMemberRows, listGroups } from '../../queries/groups.ts';
import { handle } from '../handle.ts';

/**
 * Routes of groups (cohorts; contract/src/http/admin-groups.ts; admin flag only; spec §2 Groups, §7). A user has at most one group.
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

  handle(router, listGroupsEndpoint, async (_ctx, { query: { search, counts } }) => (await listGroups(knex, search, counts === 'true' || counts === '1')).map(presentGroup));

  handle(router, createGroupEndpoint, async (ctx, { caller, body: { cohort } }) => {
    const group = await createGroup(knex, caller.id, cohort);
    ctx.status = 201;
    return presentGroup({ ...group, member_count: 0 });
  });

  handle(router, groupMembers, async (_ctx, { params: { id } }) => {
    if (!(await findGroup(knex, id))) throw notFound('Deze groep bestaat niet.');
    return (await groupMemberRows(knex, id)).map(presentMember);
  });

  handle(router, addGroupMemberEndpoint, async (_ctx, { caller, params: { id }, body: { user } }) => (await addGroupMember(knex, caller.id, id, user)).map(presentMember));

  handle(router, removeGroupMemberEndpoint, async (_ctx, { caller, params: { id, userId } }) => (await removeGroupMember(knex, caller.id, id, userId)).map(presentMember));

  return router;
}
