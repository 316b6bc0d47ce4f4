import Router from '@koa/router';
import { z } from 'zod';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { parseInput } from '../../middlewares/validate.ts';
import { forbidden, notFound } from '../../errors.ts';
import { mayDecideOnProjects, mayListAllProjects, mayListProjectRequests } from '../../policies/admin-project-policy.ts';
import { presentProject } from '../../presenters/present-project.ts';
import { GIT_URL_PATTERN, PROJECT_MESSAGES, PROJECT_REPRO_MAX } from '@devplein/contract/validation/projectRequest';
import { loadApprovedProjects, loadAwaitingProjects, loadProject } from '../../queries/projects.ts';
import { projectIdParams } from '../project-requests/schema.ts';
import { approveProject, PROJECT_NOT_FOUND } from '../../commands/approve-project.ts';
import { deleteProject } from '../../commands/delete-project.ts';
import { checkRepositoryAddress, type RepositoryAddressPolicy } from '@devplein/contract/validation/repositoryAddress';
import { gitPolicyOf } from '../../lib/git-policy.ts';

const listQuery = z.object({
  all: z.enum(['true', 'false', '1', '0'], { error: "Gebruik all=true of laat all weg." }).optional(),
});

/**
 * PUT /api/admin/projects/{id} {git?}: an optional git address to store with the decision; it
 * must pass the school's git policy (issue 23), as the request form's address does.
 */
const decisionBody = (policy: RepositoryAddressPolicy) =>
  z.object({
    git: z
      .union([z.string(), z.null()])
      .optional()
      .transform((value) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null))
      .refine((value) => value === null || (value.length <= PROJECT_REPRO_MAX && GIT_URL_PATTERN.test(value)), PROJECT_MESSAGES.repro)
      .superRefine((value, ctx) => {
        if (value === null || value.length > PROJECT_REPRO_MAX || !GIT_URL_PATTERN.test(value)) return;
        const check = checkRepositoryAddress(value, policy);
        if (!check.ok) ctx.addIssue({ code: 'custom', message: check.message });
      }),
  });

/**
 * The approvals screen's calls: GET /api/admin/projects (awaiting approval; ?all=true: all
 * approved projects), PUT /api/admin/projects/{id} (approve/reject toggle), DELETE.
 */
export function adminProjectRoutes(deps: AppDeps): AppRouter {
  const { knex, agents } = deps;
  const router: AppRouter = new Router();
  const decision = decisionBody(gitPolicyOf(deps.config));

  router.get('/api/admin/projects', async (ctx) => {
    const user = activeUser(ctx);
    // Members of team 1 may read the awaiting list (their profile counts it), nothing more.
    if (!mayListProjectRequests(user)) throw forbidden();
    const { all } = parseInput(ctx, listQuery, 'query');
    const approved = all === 'true' || all === '1';
    if (approved && !mayListAllProjects(user)) throw forbidden();
    const rows = approved ? await loadApprovedProjects(knex) : await loadAwaitingProjects(knex);
    ctx.body = rows.map(presentProject);
  });

  router.put('/api/admin/projects/:id', async (ctx) => {
    const user = activeUser(ctx);
    if (!mayDecideOnProjects(user)) throw forbidden();
    const { id } = parseInput(ctx, projectIdParams, 'params');
    const { git } = parseInput(ctx, decision, 'body');
    const { validated } = await approveProject({ knex, agents, realtime: deps.realtime, logger: deps.logger, log: ctx.state.log }, user.id, id, git);
    ctx.body = { validated };
  });

  router.delete('/api/admin/projects/:id', async (ctx) => {
    const user = activeUser(ctx);
    if (!mayDecideOnProjects(user)) throw forbidden();
    const { id } = parseInput(ctx, projectIdParams, 'params');
    const found = await loadProject(knex, id);
    if (!found) throw notFound(PROJECT_NOT_FOUND);
    const { deleted } = await deleteProject({ knex, agents }, found, { actorId: user.id, audit: true });
    if (!deleted) throw notFound(PROJECT_NOT_FOUND);
    ctx.state.log.info({ userId: user.id, projectId: id }, 'project deleted by admin');
    ctx.status = 204;
  });

  return router;
}
