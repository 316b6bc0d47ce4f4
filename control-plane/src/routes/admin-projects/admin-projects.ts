import Router from '@koa/router';
import { decideOnProject, deleteAdminProject, listAdminProjects, projectDecisionBody } from '@devplein/contract/http/admin-projects';
import { checkRepositoryAddress } from '@devplein/contract/validation/repositoryAddress';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { parseInput } from '../../middlewares/validate.ts';
import { forbidden, notFound } from '../../errors.ts';
import { mayListAllProjects, mayListProjectRequests } from '../../policies/admin-project-policy.ts';
import { presentProject } from '../../presenters/present-project.ts';
import { loadApprovedProjects, loadAwaitingProjects, loadProject } from '../../queries/projects.ts';
import { approveProject, PROJECT_NOT_FOUND } from '../../commands/approve-project.ts';
import { deleteProject } from '../../commands/delete-project.ts';
import { gitPolicyOf } from '../../lib/git-policy.ts';
import { handle } from '../handle.ts';

/**
 * The approvals screen's calls (contract/src/http/admin-projects.ts): GET /api/admin/projects
 * (awaiting approval; ?all=true: all approved projects), PUT /api/admin/projects/{id}
 * (approve/reject toggle), DELETE.
 */
export function adminProjectRoutes(deps: AppDeps): AppRouter {
  const { knex, agents } = deps;
  const router: AppRouter = new Router();
  const policy = gitPolicyOf(deps.config);
  // The declared address check, and the school's git policy (issue 23), as the request form's address.
  const decision = projectDecisionBody.superRefine(({ git }, ctx) => {
    if (git === null) return;
    const check = checkRepositoryAddress(git, policy);
    if (!check.ok) ctx.addIssue({ code: 'custom', message: check.message, path: ['git'] });
  });

  handle(router, listAdminProjects, async (_ctx, { caller: user, query: { all } }) => {
    // Members of team 1 may read the awaiting list (their profile counts it), nothing more.
    if (!mayListProjectRequests(user)) throw forbidden();
    const approved = all === 'true' || all === '1';
    if (approved && !mayListAllProjects(user)) throw forbidden();
    const rows = approved ? await loadApprovedProjects(knex) : await loadAwaitingProjects(knex);
    return rows.map(presentProject);
  });

  handle(
    router,
    decideOnProject,
    async (ctx, { caller: user, params: { id }, body: { git } }) => {
      const { validated } = await approveProject({ knex, agents, notices: deps.services.containerNotices, log: ctx.state.log }, user.id, id, git);
      return { validated };
    },
    { parseBody: (ctx) => parseInput(ctx, decision, 'body') },
  );

  handle(router, deleteAdminProject, async (ctx, { caller: user, params: { id } }) => {
    const found = await loadProject(knex, id);
    if (!found) throw notFound(PROJECT_NOT_FOUND);
    const { deleted } = await deleteProject({ knex, agents }, found, { actorId: user.id, audit: true });
    if (!deleted) throw notFound(PROJECT_NOT_FOUND);
    ctx.state.log.info({ userId: user.id, projectId: id }, 'project deleted by admin');
    ctx.status = 204;
  });

  return router;
}
