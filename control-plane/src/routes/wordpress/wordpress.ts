import Router from '@koa/router';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { resetWordpressPassword, resetWordpressPasswordByGet } from '@devplein/contract/http/wordpress';
import { HttpError, postOnly } from '../../errors.ts';
import { callAgent } from '../../agent/agent-failure.ts';
import { loadDockerProject, loadDockerProjectByName } from '../../queries/projects.ts';
import { authorizeProject } from '../../policies/authorize-project.ts';
import { presentWordpressPassword } from '../../presenters/present-wordpress-password.ts';
import { handle } from '../handle.ts';

export const NOT_WORDPRESS_MESSAGE = 'Dit project is geen WordPress-project.';
export const RESET_BY_GET_MESSAGE = 'Een nieuw WordPress-wachtwoord vraag je aan met de knop op de Dockers-pagina (POST), niet met een link.';

/**
 * POST /api/wordpress/passwordreset/{project} (contract/src/http/wordpress.ts): a new password for the WordPress administrator of
 * the project's container, shown once (the agent and the control plane keep no copy). The spec's
 * GET changed state: it answers 405 now (DESIGN.md, deviations).
 */
export function wordpressRoutes(deps: AppDeps): AppRouter {
  const router: AppRouter = new Router();

  handle(router, resetWordpressPasswordByGet, async (ctx) => postOnly(ctx, RESET_BY_GET_MESSAGE));

  handle(router, resetWordpressPassword, async (ctx, { caller: user, params: { project: ref } }) => {
    const row = ref.id !== undefined ? await loadDockerProject(deps.knex, ref.id) : await loadDockerProjectByName(deps.knex, ref.name);
    const project = authorizeProject(user, row);
    if (!project.wordpress) throw new HttpError(409, NOT_WORDPRESS_MESSAGE);
    const reset = await callAgent(() => deps.agents.forHost(project.host).containers.execWordpressPasswordReset({ projectId: project.id }, undefined, { requestId: ctx.state.requestId }));
    ctx.state.log.info({ userId: user.id, projectId: project.id }, 'wordpress password reset');
    ctx.set('Cache-Control', 'no-store');
    return presentWordpressPassword(reset);
  });

  return router;
}
