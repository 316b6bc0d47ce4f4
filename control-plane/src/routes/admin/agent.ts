import Router from '@koa/router';
import { adminAgent } from '@devplein/contract/http/admin-agent';
import type { AgentHostJson } from '@devplein/contract/status';
import type { AppRouter } from '../../app-context.ts';
import type { AgentFleet, AgentLink } from '../../agent/agent-fleet.ts';
import { handle } from '../handle.ts';

/** One dev server's agent, its Info asked live (the last known one when it does not answer). */
async function hostJson(link: AgentLink, requestId: string): Promise<AgentHostJson> {
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
 * GET /api/admin/agent (contract/src/http/admin-agent.ts, admins): every dev server's agent
 * (`hosts`, asked at once), and at the top level the first one's, as the answer was before there
 * could be more.
 */
export function adminAgentRoutes(deps: { agents: AgentFleet }): AppRouter {
  const router: AppRouter = new Router();
  handle(router, adminAgent, async (ctx) => {
    const hosts = await Promise.all(deps.agents.links.map((link) => hostJson(link, ctx.state.requestId)));
    const first = hosts[0] as AgentHostJson;
    return { state: first.state, since: first.since, info: first.info, error: first.error, hosts };
  });
  return router;
}
