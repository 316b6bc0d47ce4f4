import Router from '@koa/router';
import type { Knex } from 'knex';
import type { AppRouter } from '../../app-context.ts';
import type { AgentFleet } from '../../agent/agent-fleet.ts';
import { controlPlaneHealth } from '../../metrics/health-report.ts';

/**
 * GET /healthz for load balancers and operators: 200 while the control plane and its database
 * work (an unreachable agent degrades, it does not take the site down), 503 otherwise.
 */
export function healthRoutes(deps: { knex: Knex; agents: AgentFleet }): AppRouter {
  const router: AppRouter = new Router();
  router.get('/healthz', async (ctx) => {
    const report = await controlPlaneHealth(deps);
    ctx.status = report.healthy ? 200 : 503;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = report.body;
  });
  return router;
}
