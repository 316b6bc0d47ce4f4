import Router from '@koa/router';
import { inviteAgent as inviteAgentEndpoint, listAgentLinks as listAgentLinksEndpoint, revokeAgent as revokeAgentEndpoint } from '@devplein/contract/http/admin-agents';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { AgentLinkRefusal, inviteAgent, listAgentLinks, revokeAgent } from '../../agent-links/agent-link-store.ts';
import { joinCommand, joinString, JoinUnavailable, loadJoinAuthority } from '../../agent-links/join-authority.ts';
import { readReleaseSigner } from '../../agent-links/release-signer.ts';
import { HttpError, notFound, serviceUnavailable, validationFailed } from '../../errors.ts';
import { presentAgentLink } from '../../presenters/present-agent-link.ts';
import { handle } from '../handle.ts';

/**
 * The dev servers' links (contract/src/http/admin-agents.ts; admins; every write audited): GET
 * /api/admin/agents lists them, POST /api/admin/agents/invitations makes a one-time join command,
 * POST /api/admin/agents/{name}/revoke ends a link (the fleet drops it at once, on the notice).
 */
export function adminAgentLinkRoutes(deps: Pick<AppDeps, 'knex' | 'config'>): AppRouter {
  const router: AppRouter = new Router();

  handle(router, listAgentLinksEndpoint, async () => (await listAgentLinks(deps.knex)).map(presentAgentLink));

  handle(router, inviteAgentEndpoint, async (ctx, { caller, body: input }) => {
    let authority;
    try {
      authority = await loadJoinAuthority(deps.config);
    } catch (error) {
      if (error instanceof JoinUnavailable) throw serviceUnavailable(error.message);
      throw error;
    }
    try {
      const invitation = await inviteAgent(deps.knex, {
        name: input.name,
        address: input.address,
        siteDomain: input.site_domain,
        studentDbHost: input.db_host,
        dbAdminUrl: input.db_admin_url,
        actorId: caller.id,
      });
      const value = joinString(deps.config.appUrl, invitation.token, authority.caFingerprint);
      const body = { name: invitation.link.name, joinString: value, joinCommand: joinCommand(await readReleaseSigner()), expiresAt: invitation.expiresAt.toISOString() };
      ctx.status = 201;
      ctx.set('Cache-Control', 'no-store');
      return body;
    } catch (error) {
      if (error instanceof AgentLinkRefusal) {
        throw error.reason === 'site-domain' ? validationFailed({ site_domain: [error.message] }) : new HttpError(409, error.message);
      }
      throw error;
    }
  });

  handle(router, revokeAgentEndpoint, async (_ctx, { caller, params: { name } }) => {
    try {
      const row = await revokeAgent(deps.knex, name, caller.id);
      if (!row) throw notFound('Deze ontwikkelserver is niet (meer) gekoppeld.');
      return presentAgentLink(row);
    } catch (error) {
      if (error instanceof AgentLinkRefusal) throw new HttpError(409, error.message);
      throw error;
    }
  });

  return router;
}
