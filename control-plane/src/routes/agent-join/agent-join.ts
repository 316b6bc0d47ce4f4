import Router from '@koa/router';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { z } from 'zod';
import type { AgentJoinJson } from '@devplein/contract/agent-links';
import type { AppDeps, AppRouter } from '../../app-context.ts';
import { agentCommonName, CsrError, issueAgentCertificate } from '../../agent-links/agent-certificate.ts';
import { JoinTokenError, redeemJoinToken } from '../../agent-links/agent-link-store.ts';
import { JoinUnavailable, loadJoinAuthority } from '../../agent-links/join-authority.ts';
import { HttpError, notFound, serviceUnavailable, validationFailed } from '../../errors.ts';
import { parseInput } from '../../middlewares/validate.ts';

/** No session, so no CSRF token: the join token is the authority (app.ts exempts this path). */
export const AGENT_JOIN_PATH = '/api/agents/join';
/** The link CA certificate (public): a joining server checks it against its join string before it spends the token. */
export const AGENT_CA_PATH = '/api/agents/ca';

const joinInput = z.object({
  csr: z
    .string({ error: 'Stuur het certificaatverzoek (csr, PEM).' })
    .max(8_000, 'Het certificaatverzoek is te groot.')
    .regex(/-----BEGIN CERTIFICATE REQUEST-----/, 'Stuur het certificaatverzoek als PEM (-----BEGIN CERTIFICATE REQUEST-----).'),
});

const TOKEN = /^Bearer ([A-Za-z0-9_-]{43})$/;

/**
 * POST /api/agents/join (Authorization: Bearer <token>, body {csr}): a dev server that was
 * invited redeems its one-time token. The token is checked (known 401; used or expired 410),
 * the CSR too (EC P-256, its own signature; else 422, and the token still works); its subject is
 * ignored: the answer is a certificate for `agent-<name>` (serverAuth only) signed by the link CA,
 * with the CA certificate. The link is active from then on with that certificate's fingerprint
 * pinned. `Accept: application/x-pem-file` answers the two PEMs, certificate first (install.sh).
 * Rate-limited per address: 10 attempts a minute.
 */
export function agentJoinRoutes(deps: Pick<AppDeps, 'knex' | 'config' | 'logger'>): AppRouter {
  const router: AppRouter = new Router();
  const attempts = new RateLimiterMemory({ points: 10, duration: 60 });

  // Joining switched off (no CA key): 404, there is nothing to join.
  router.get(AGENT_CA_PATH, async (ctx) => {
    try {
      const authority = await loadJoinAuthority(deps.config);
      ctx.type = 'application/x-pem-file';
      ctx.body = authority.caCertPem;
    } catch (error) {
      if (error instanceof JoinUnavailable) throw notFound(error.message);
      throw error;
    }
  });

  router.post(AGENT_JOIN_PATH, async (ctx) => {
    try {
      await attempts.consume(ctx.ip);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const seconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      ctx.set('Retry-After', String(seconds));
      throw new HttpError(429, `Te veel koppelpogingen vanaf dit adres. Wacht ${seconds} seconden.`);
    }
    const token = TOKEN.exec(ctx.get('Authorization'))?.[1];
    if (!token) throw new HttpError(401, 'Stuur de koppelcode als Authorization: Bearer <code>.');
    const { csr } = parseInput(ctx, joinInput, 'body');
    let authority;
    try {
      authority = await loadJoinAuthority(deps.config);
    } catch (error) {
      if (error instanceof JoinUnavailable) throw serviceUnavailable(error.message);
      throw error;
    }
    let joined;
    try {
      joined = await redeemJoinToken(deps.knex, token, (link) =>
        issueAgentCertificate({ csrPem: csr, name: link.name, address: link.address, caCertPem: authority.caCertPem, caKeyPem: authority.caKeyPem }),
      );
    } catch (error) {
      if (error instanceof JoinTokenError) throw new HttpError(error.reason === 'unknown' ? 401 : 410, error.message);
      if (error instanceof CsrError) throw validationFailed({ csr: [error.message] });
      throw error;
    }
    ctx.state.log.info({ agent: joined.link.name, fingerprint: joined.certificate.fingerprint }, 'dev server joined');
    ctx.set('Cache-Control', 'no-store');
    if (ctx.accepts('json', 'application/x-pem-file') === 'application/x-pem-file') {
      ctx.type = 'application/x-pem-file';
      ctx.body = `${joined.certificate.certPem.trim()}\n${authority.caCertPem.trim()}\n`;
      return;
    }
    const body: AgentJoinJson = {
      name: joined.link.name,
      commonName: agentCommonName(joined.link.name),
      certificate: joined.certificate.certPem,
      ca: authority.caCertPem,
      fingerprint: joined.certificate.fingerprint,
      notAfter: joined.certificate.notAfter.toISOString(),
    };
    ctx.body = body;
  });

  return router;
}
