import Router from '@koa/router';
import type { Knex } from 'knex';
import type { AppRouter } from '../../app-context.ts';
import type { AgentClient } from '../../agent/agent-client.ts';

async function databaseUp(knex: Knex): Promise<boolean> {
  try {
    await knex.raw('select 1');
    return true;
  } catch {
    return false;
  }
}

/**
 * GET /healthz for load balancers and operators: 200 while the control plane and its database
 * work (an unreachable agent degrades, it does not take the site down), 503 otherwise.
 */
export function healthRoutes(deps: { knex: Knex; agent: AgentClient }): AppRouter {
  const router: AppRouter = new Router();
  router.get('/healthz', async (ctx) => {
    const database = (await databaseUp(deps.knex)) ? 'up' : 'down';
    const agent = deps.agent.status();
    const healthy = database === 'up';
    ctx.status = healthy ? 200 : 503;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      status: healthy ? (agent.state === 'reachable' ? 'ok' : 'degraded') : 'down',
      database,
      agent: { state: agent.state, since: agent.since },
    };
  });
  return router;
}
