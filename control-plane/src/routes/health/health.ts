import Router from '@koa/router';
import type { Knex } from 'knex';
import { health } from '@devplein/contract/http/health';
import type { AppRouter } from '../../app-context.ts';
import type { AgentFleet } from '../../agent/agent-fleet.ts';
import { controlPlaneHealth } from '../../metrics/health-report.ts';
import { handle } from '../handle.ts';

/**
 * GET /healthz for load balancers and operators (contract/src/http/health.ts): 200 while the
 * control plane and its database work (an unreachable agent degrades, it does not take the site
 * down), 503 otherwise.
 */
export function healthRoutes(deps: { knex: Knex; agents: AgentFleet }): AppRouter {
  const router: AppRouter = new Router();
  handle(router, health, async (ctx) => {
    const report = await controlPlaneHealth(deps);
    ctx.status = report.healthy ? 200 : 503;
    ctx.set('Cache-Control', 'no-store');
    return report.body;
  });
  return router;
}
