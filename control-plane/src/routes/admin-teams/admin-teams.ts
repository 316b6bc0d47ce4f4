import Router from '@koa/router';
import { createTeam as createTeamEndpoint, listTeams, teamMembers, toggleTeamMember as toggleTeamMemberEndpoint } from '@devplein/contract/http/admin-teams';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { createTeam } from '../../commands/create-team.ts';
import { toggleTeamMember } from '../../commands/toggle-team-member.ts';
import { notFound } from '../../errors.ts';
import { presentMember, presentTeamSummary } from '../../presenters/present-team.ts';
import { findTeam, teamMemberRows, teamSummaries } from '../../queries/teams.ts';
import { handle } from '../handle.ts';

/**
 * Routes of teams (contract/src/http/admin-teams.ts; admin flag only; spec §2 Teams, §7):
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

  handle(router, listTeams, async () => (await teamSummaries(knex)).map(presentTeamSummary));

  handle(router, createTeamEndpoint, async (ctx, { caller, body: { name } }) => {
    const team = await createTeam(knex, caller.id, name);
    ctx.status = 201;
    return presentTeamSummary({ ...team, member_count: 0 });
  });

  handle(router, teamMembers, async (_ctx, { params: { id } }) => {
    if (!(await findTeam(knex, id))) throw notFound('Dit team bestaat niet.');
    return (await teamMemberRows(knex, id)).map(presentMember);
  });

  handle(router, toggleTeamMemberEndpoint, async (_ctx, { caller, params: { id }, body: { user } }) => (await toggleTeamMember(knex, caller.id, id, user)).map(presentMember));

  return router;
}
