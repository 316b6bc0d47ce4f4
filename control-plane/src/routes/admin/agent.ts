import Router from '@koa/router';
import type { AppRouter } from '../../app-context.ts';
import type { AgentClient } from '../../agent/agent-client.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { forbidden } from '../../errors.ts';
import { mayViewAgent } from '../../policies/agent-policy.ts';

/** GET /api/admin/agent: the agent's own Info, asked live, with the link state. */
export function adminAgentRoutes(deps: { agent: AgentClient }): AppRouter {
  const router: AppRouter = new Router();
  router.get('/api/admin/agent', async (ctx) => {
    const user = activeUser(ctx);
    if (!mayViewAgent(user)) throw forbidden();
    const status = deps.agent.status();
    let info = status.info ?? null;
    let error = status.lastError ?? null;
    try {
      info = await deps.agent.info({ requestId: ctx.state.requestId });
      error = null;
    } catch (failure) {
      error = (failure as Error).message;
    }
    const current = deps.agent.status();
    ctx.body = { state: current.state, since: current.since, info, error };
  });
  return router;
}
