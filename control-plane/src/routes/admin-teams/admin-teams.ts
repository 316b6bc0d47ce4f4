import Router from '@koa/router';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { recordAudit } from '../../audit/record-audit.ts';
import { notFound, validationFailed } from '../../errors.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { parseInput } from '../../middlewares/validate.ts';
import { authorizeTeamManagement } from '../../policies/team-policy.ts';
import { presentTeamSummary } from '../../presenters/present-team.ts';
import { teamMembers } from './members.ts';
import { teamIdParams, teamInput, teamMemberInput } from './schema.ts';

/**
 * Routes of teams (admin flag only; spec §2 Teams, §7):
 * - GET  /api/admin/teams        [{id, name, member_count}] by id
 * - GET  /api/admin/teams/{id}   the members [{id, name, email, group: {id, cohort} | null}] by name
 * - PUT  /api/admin/teams/{id}   {user}: toggles membership (add if absent, remove if present); answers the members.
 *                                Audit team.add-member / team.remove-member. Unknown user → 422 on `user`.
 * - POST /api/admin/teams        {name} (1..60, unique case-insensitively) → 201 {id, name, member_count}. Audit team.create.
 * Unknown team → 404.
 */
export function adminTeamRoutes(deps: AppDeps): AppRouter {
  const router: AppRouter = new Router();
  const { knex } = deps;

  router.get('/api/admin/teams', async (ctx) => {
    authorizeTeamManagement(activeUser(ctx));
    const rows = await knex('teams')
      .leftJoin('team_user', 'team_user.team_id', 'teams.id')
      .groupBy('teams.id', 'teams.name')
      .orderBy('teams.id')
      .select<Array<{ id: number; name: string; member_count: string }>>('teams.id', 'teams.name', knex.raw('count(team_user.user_id) as member_count'));
    ctx.body = rows.map(presentTeamSummary);
  });

  router.post('/api/admin/teams', async (ctx) => {
    const actor = activeUser(ctx);
    authorizeTeamManagement(actor);
    const { name } = parseInput(ctx, teamInput, 'body');
    const team = await knex.transaction(async (trx) => {
      // Serialises team creation, so two admins cannot both create the same name.
      await trx.raw('LOCK TABLE teams IN SHARE ROW EXCLUSIVE MODE');
      const existing = await trx('teams').whereRaw('lower(name) = lower(?)', [name]).first('id');
      if (existing) throw validationFailed({ name: ['Er bestaat al een team met deze naam.'] });
      const [row] = await trx('teams').insert({ name }).returning<Array<{ id: number; name: string }>>(['id', 'name']);
      if (!row) throw new Error('team insert returned nothing');
      await recordAudit(trx, { actorId: actor.id, action: 'team.create', subjectType: 'team', subjectId: row.id, after: { name: row.name } });
      return row;
    });
    ctx.status = 201;
    ctx.body = presentTeamSummary({ ...team, member_count: 0 });
  });

  router.get('/api/admin/teams/:id', async (ctx) => {
    authorizeTeamManagement(activeUser(ctx));
    const { id } = parseInput(ctx, teamIdParams, 'params');
    const team = await knex('teams').where({ id }).first('id');
    if (!team) throw notFound('Dit team bestaat niet.');
    ctx.body = await teamMembers(knex, id);
  });

  router.put('/api/admin/teams/:id', async (ctx) => {
    const actor = activeUser(ctx);
    authorizeTeamManagement(actor);
    const { id } = parseInput(ctx, teamIdParams, 'params');
    const { user } = parseInput(ctx, teamMemberInput, 'body');
    ctx.body = await knex.transaction(async (trx) => {
      const team = await trx('teams').where({ id }).forUpdate().first('id', 'name');
      if (!team) throw notFound('Dit team bestaat niet.');
      const member = await trx('users').where({ id: user }).first('id', 'name');
      if (!member) throw validationFailed({ user: ['Deze gebruiker bestaat niet.'] });
      const removed = await trx('team_user').where({ team_id: id, user_id: user }).delete();
      if (removed === 0) await trx('team_user').insert({ team_id: id, user_id: user });
      await recordAudit(trx, {
        actorId: actor.id,
        action: removed === 0 ? 'team.add-member' : 'team.remove-member',
        subjectType: 'team',
        subjectId: id,
        before: { member: removed !== 0, user_id: user, user_name: member.name },
        after: { member: removed === 0, user_id: user, user_name: member.name },
      });
      return teamMembers(trx, id);
    });
  });

  return router;
}
