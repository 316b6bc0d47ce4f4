import Router from '@koa/router';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { createTeam } from '../../commands/create-team.ts';
import { toggleTeamMember } from '../../commands/toggle-team-member.ts';
import { notFound } from '../../errors.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { parseInput } from '../../middlewares/validate.ts';
import { authorizeTeamManagement } from '../../policies/team-policy.ts';
import { presentMember, presentTeamSummary } from '../../presenters/present-team.ts';
import { findTeam, teamMemberRows, teamSummaries } from '../../queries/teams.ts';
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
    ctx.body = (await teamSummaries(knex)).map(presentTeamSummary);
  });

  router.post('/api/admin/teams', async (ctx) => {
    const actor = activeUser(ctx);
    authorizeTeamManagement(actor);
    const { name } = parseInput(ctx, teamInput, 'body');
    const team = await createTeam(knex, actor.id, name);
    ctx.status = 201;
    ctx.body = presentTeamSummary({ ...team, member_count: 0 });
  });

  router.get('/api/admin/teams/:id', async (ctx) => {
    authorizeTeamManagement(activeUser(ctx));
    const { id } = parseInput(ctx, teamIdParams, 'params');
    const team = await findTeam(knex, id);
    if (!team) throw notFound('Dit team bestaat niet.');
    ctx.body = (await teamMemberRows(knex, id)).map(presentMember);
  });

  router.put('/api/admin/teams/:id', async (ctx) => {
    const actor = activeUser(ctx);
    authorizeTeamManagement(actor);
    const { id } = parseInput(ctx, teamIdParams, 'params');
    const { user } = parseInput(ctx, teamMemberInput, 'body');
    ctx.body = (await toggleTeamMember(knex, actor.id, id, user)).map(presentMember);
  });

  return router;
}
