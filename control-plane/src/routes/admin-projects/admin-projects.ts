import Router from '@koa/router';
import type { AppRouter } from '../../app-context.ts';
import type { AppDeps } from '../../app.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { forbidden } from '../../errors.ts';
import { mayListProjectRequests } from '../../policies/admin-project-policy.ts';
import { presentProjectRequest } from '../../presenters/present-project-request.ts';

/**
 * GET /api/admin/projects: projects awaiting approval (validated null), oldest first. For now it
 * answers what the profile's request counter needs; the approvals screen of a later issue
 * extends it (?all=true, members, image, approve/reject).
 */
export function adminProjectRoutes(deps: AppDeps): AppRouter {
  const router: AppRouter = new Router();

  router.get('/api/admin/projects', async (ctx) => {
    const user = activeUser(ctx);
    if (!mayListProjectRequests(user)) throw forbidden();
    const rows = await deps.knex('projects')
      .select('id', 'name', 'domain', 'created_at')
      .whereNull('validated')
      .orderBy(['created_at', 'id']);
    ctx.body = rows.map(presentProjectRequest);
  });

  return router;
}
