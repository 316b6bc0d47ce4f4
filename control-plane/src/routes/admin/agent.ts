import Router from '@koa/router';
import type { AppRouter } from '../../app-context.ts';
import type { AgentFleet, AgentLink } from '../../agent/agent-fleet.ts';
import type { AgentInfoView } from '../../agent/agent-client.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { forbidden } from '../../errors.ts';
import { mayViewAgent } from '../../policies/agent-policy.ts';

interface HostJson {
  name: string;
  address: string;
  siteDomain: string;
  state: string;
  since: string;
  info: AgentInfoView | null;
  error: string | null;
}

/** One dev server's agent, its Info asked live (the last known one when it does not answer). */
async function hostJson(link: AgentLink, requestId: string): Promise<HostJson> {
  const status = link.client.status();
  let info = status.info ?? null;
  let error = status.lastError ?? null;
  try {
    info = await link.client.info({ requestId });
    error = null;
  } catch (failure) {
    error = (failure as Error).message;
  }
  const current = link.client.status();
  return { name: link.name, address: link.address, siteDomain: link.siteDomain, state: current.state, since: current.since, info, error };
}

/**
 * GET /api/admin/agent: every dev server's agent (`hosts`, asked at once), and at the top level
 * the first one's, as the answer was before there could be more.
 */
export function adminAgentRoutes(deps: { agents: AgentFleet }): AppRouter {
  const router: AppRouter = new Router();
  router.get('/api/admin/agent', async (ctx) => {
    const user = activeUser(ctx);
    if (!mayViewAgent(user)) throw forbidden();
    const hosts = await Promise.all(deps.agents.links.map((link) => hostJson(link, ctx.state.requestId)));
    const first = hosts[0] as HostJson;
    ctx.body = { state: first.state, since: first.since, info: first.info, error: first.error, hosts };
  });
  return router;
}
