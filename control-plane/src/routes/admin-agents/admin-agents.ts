import Router from '@koa/router';
import { z } from 'zod';
import { agentInvitationInput, AGENT_LINK_NAME_PATTERN, type AgentInvitationJson } from '@devplein/contract/agent-links';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { AgentLinkRefusal, inviteAgent, listAgentLinks, revokeAgent } from '../../agent-links/agent-link-store.ts';
import { joinCommand, joinString, JoinUnavailable, loadJoinAuthority } from '../../agent-links/join-authority.ts';
import { readReleaseSigner } from '../../agent-links/release-signer.ts';
import { HttpError, forbidden, notFound, serviceUnavailable, validationFailed } from '../../errors.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { parseInput } from '../../middlewares/validate.ts';
import { mayManageAgentLinks } from '../../policies/agent-policy.ts';
import { presentAgentLink } from '../../presenters/present-agent-link.ts';

const nameParams = z.object({ name: z.string().regex(AGENT_LINK_NAME_PATTERN, 'Onbekende ontwikkelserver.') });

/**
 * The dev servers' links (admins; every write audited): GET /api/admin/agents lists them,
 * POST /api/admin/agents/invitations makes a one-time join command, POST
 * /api/admin/agents/{name}/revoke ends a link (the fleet drops it at once, on the notice).
 */
export function adminAgentLinkRoutes(deps: Pick<AppDeps, 'knex' | 'config'>): AppRouter {
  const router: AppRouter = new Router();

  router.get('/api/admin/agents', async (ctx) => {
    if (!mayManageAgentLinks(activeUser(ctx))) throw forbidden();
    ctx.body = (await listAgentLinks(deps.knex)).map(presentAgentLink);
  });

  router.post('/api/admin/agents/invitations', async (ctx) => {
    const actor = activeUser(ctx);
    if (!mayManageAgentLinks(actor)) throw forbidden();
    const input = parseInput(ctx, agentInvitationInput, 'body');
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
        actorId: actor.id,
      });
      const value = joinString(deps.config.appUrl, invitation.token, authority.caFingerprint);
      const body: AgentInvitationJson = { name: invitation.link.name, joinString: value, joinCommand: joinCommand(await readReleaseSigner()), expiresAt: invitation.expiresAt.toISOString() };
      ctx.status = 201;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = body;
    } catch (error) {
      if (error instanceof AgentLinkRefusal) {
        throw error.reason === 'site-domain' ? validationFailed({ site_domain: [error.message] }) : new HttpError(409, error.message);
      }
      throw error;
    }
  });

  router.post('/api/admin/agents/:name/revoke', async (ctx) => {
    const actor = activeUser(ctx);
    if (!mayManageAgentLinks(actor)) throw forbidden();
    const { name } = parseInput(ctx, nameParams, 'params');
    try {
      const row = await revokeAgent(deps.knex, name, actor.id);
      if (!row) throw notFound('Deze ontwikkelserver is niet (meer) gekoppeld.');
      ctx.body = presentAgentLink(row);
    } catch (error) {
      if (error instanceof AgentLinkRefusal) throw new HttpError(409, error.message);
      throw error;
    }
  });

  return router;
}
