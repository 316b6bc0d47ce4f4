import Router from '@koa/router';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { recordAudit } from '../../audit/record-audit.ts';
import { notFound, validationFailed } from '../../errors.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { parseInput } from '../../middlewares/validate.ts';
import { authorizeGroupManagement } from '../../policies/group-policy.ts';
import { presentGroup } from '../../presenters/present-group.ts';
import { groupMembers } from '../admin-teams/members.ts';
import { containsPattern } from '../user-search/like-pattern.ts';
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
    const query = knex('groups').select('groups.id', 'groups.cohort').orderBy([{ column: 'groups.cohort' }, { column: 'groups.id' }]);
    if (search) query.whereILike('groups.cohort', containsPattern(search));
    if (counts === 'true' || counts === '1') {
      query
        .select(knex.raw('(select count(*) from users where users.group_id = groups.id) as member_count'));
    }
    const rows: Array<{ id: number; cohort: string; member_count?: string }> = await query;
    ctx.body = rows.map(presentGroup);
  });

  router.post('/api/admin/groups', async (ctx) => {
    const actor = activeUser(ctx);
    authorizeGroupManagement(actor);
    const { cohort } = parseInput(ctx, groupInput, 'body');
    const group = await knex.transaction(async (trx) => {
      // Serialises creation: the unique check below cannot race another admin's insert.
      await trx.raw('LOCK TABLE groups IN SHARE ROW EXCLUSIVE MODE');
      const existing = await trx('groups').whereRaw('upper(cohort) = ?', [cohort]).first('id');
      if (existing) throw validationFailed({ cohort: ['Deze klas bestaat al.'] });
      const [row] = await trx('groups').insert({ cohort }).returning<Array<{ id: number; cohort: string }>>(['id', 'cohort']);
      if (!row) throw new Error('group insert returned nothing');
      await recordAudit(trx, { actorId: actor.id, action: 'group.create', subjectType: 'group', subjectId: row.id, after: { cohort: row.cohort } });
      return row;
    });
    ctx.status = 201;
    ctx.body = presentGroup({ ...group, member_count: 0 });
  });

  router.get('/api/admin/groups/:id', async (ctx) => {
    authorizeGroupManagement(activeUser(ctx));
    const { id } = parseInput(ctx, groupIdParams, 'params');
    const group = await knex('groups').where({ id }).first('id');
    if (!group) throw notFound('Deze groep bestaat niet.');
    ctx.body = await groupMembers(knex, id);
  });

  router.put('/api/admin/groups/:id', async (ctx) => {
    const actor = activeUser(ctx);
    authorizeGroupManagement(actor);
    const { id } = parseInput(ctx, groupIdParams, 'params');
    const { user } = parseInput(ctx, groupMemberInput, 'body');
    ctx.body = await knex.transaction(async (trx) => {
      const group = await trx('groups').where({ id }).first<{ id: number; cohort: string } | undefined>('id', 'cohort');
      if (!group) throw notFound('Deze groep bestaat niet.');
      const member = await trx('users')
        .leftJoin('groups', 'groups.id', 'users.group_id')
        .where('users.id', user)
        .forUpdate('users')
        .first<{ id: number; name: string; group_id: number | null; cohort: string | null } | undefined>('users.id', 'users.name', 'users.group_id', 'groups.cohort');
      if (!member) throw validationFailed({ user: ['Deze gebruiker bestaat niet.'] });
      if (member.group_id !== id) {
        await trx('users').where({ id: user }).update({ group_id: id, updated_at: trx.fn.now() });
        await recordAudit(trx, {
          actorId: actor.id,
          action: 'group.add-member',
          subjectType: 'group',
          subjectId: id,
          before: { user_id: user, user_name: member.name, group_id: member.group_id, cohort: member.cohort },
          after: { user_id: user, user_name: member.name, group_id: id, cohort: group.cohort },
        });
      }
      return groupMembers(trx, id);
    });
  });

  router.delete('/api/admin/groups/:id/users/:userId', async (ctx) => {
    const actor = activeUser(ctx);
    authorizeGroupManagement(actor);
    const { id, userId } = parseInput(ctx, groupMemberParams, 'params');
    ctx.body = await knex.transaction(async (trx) => {
      const group = await trx('groups').where({ id }).first<{ id: number; cohort: string } | undefined>('id', 'cohort');
      if (!group) throw notFound('Deze groep bestaat niet.');
      const member = await trx('users').where({ id: userId, group_id: id }).forUpdate().first<{ id: number; name: string } | undefined>('id', 'name');
      if (!member) throw notFound('Deze gebruiker zit niet in deze groep.');
      await trx('users').where({ id: userId }).update({ group_id: null, updated_at: trx.fn.now() });
      await recordAudit(trx, {
        actorId: actor.id,
        action: 'group.remove-member',
        subjectType: 'group',
        subjectId: id,
        before: { user_id: userId, user_name: member.name, group_id: id, cohort: group.cohort },
        after: { user_id: userId, user_name: member.name, group_id: null, cohort: null },
      });
      return groupMembers(trx, id);
    });
  });

  return router;
}
