import Router from '@koa/router';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { AgentJoinJson } from '@devplein/contract/agent-links';
import { agentCa, joinAgent, renewAgentCertificate as renewEndpoint } from '@devplein/contract/http/agent-join';
import type { AppContext, AppDeps, AppRouter } from '../../app-context.ts';
import { agentCommonName, CsrError, csrPublicKeyDer, issueAgentCertificate } from '../../agent-links/agent-certificate.ts';
import { JoinTokenError, redeemJoinToken, RenewalRefusal, renewAgentCertificate } from '../../agent-links/agent-link-store.ts';
import { RenewalProofError, verifyRenewalProof } from '../../agent-links/renewal-proof.ts';
import { JoinUnavailable, loadJoinAuthority } from '../../agent-links/join-authority.ts';
import { forbidden, HttpError, notFound, serviceUnavailable, validationFailed } from '../../errors.ts';
import { handle } from '../handle.ts';

/** No session, so no CSRF token: the join token is the authority (app.ts exempts this path). */
export const AGENT_JOIN_PATH = joinAgent.path;
/** No session either: the agent's current certificate and a signature with its key are the authority. */
export const AGENT_RENEW_PATH = renewEndpoint.path;

const TOKEN = /^Bearer ([A-Za-z0-9_-]{43})$/;

/**
 * The links' own endpoints (contract/src/http/agent-join.ts). GET /api/agents/ca: the link CA
 * certificate (public), for a joining server to check against its join string before it spends
 * the token.
 *
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
  const renewals = new RateLimiterMemory({ points: 10, duration: 60 });

  // Joining switched off (no CA key): 404, there is nothing to join.
  handle(router, agentCa, async (ctx) => {
    try {
      const authority = await loadJoinAuthority(deps.config);
      ctx.type = 'application/x-pem-file';
      ctx.body = authority.caCertPem;
    } catch (error) {
      if (error instanceof JoinUnavailable) throw notFound(error.message);
      throw error;
    }
  });

  handle(router, joinAgent, async (ctx, request) => {
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
    // The body is read (and parsed: 422) only now, after the rate limit and the token.
    const { csr } = request.body;
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
    return presentSignedCertificate(ctx, joined, authority.caCertPem);
  });

  /*
   * POST /api/agents/renew (body {certificate, csr, signed_at, signature}): a joined agent whose
   * certificate nears its end renews it without a new invitation (host-agent/src/cert-renew.ts,
   * `devplein agent renew`). The certificate must be the link CA's, still valid, and the pin (or
   * the pin renewed from) of an active joined link; the signature by its key over this CSR and a
   * time within 5 minutes proves the caller holds that key (agent-links/renewal-proof.ts). The
   * answer is a new certificate for the same name and address, pinned at once; the one renewed
   * from stays accepted (to connect, and to renew again when this answer was lost) until the
   * control plane sees the agent with the new one in a handshake, at most until its own end, so
   * the agent switches when it restarts (issue 35). 422 for bad input, 403 for a certificate that
   * is no (longer a) pinned one. Rate-limited: 10 a minute per address.
   */
  handle(router, renewEndpoint, async (ctx, request) => {
    try {
      await renewals.consume(ctx.ip);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const seconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      ctx.set('Retry-After', String(seconds));
      throw new HttpError(429, `Te veel pogingen vanaf dit adres. Wacht ${seconds} seconden.`);
    }
    // Read (and parsed: 422) only after the rate limit.
    const input = request.body;
    let authority;
    try {
      authority = await loadJoinAuthority(deps.config);
    } catch (error) {
      if (error instanceof JoinUnavailable) throw serviceUnavailable(error.message);
      throw error;
    }
    let renewed;
    try {
      const proven = verifyRenewalProof({
        certificatePem: input.certificate,
        csrPem: input.csr,
        csrPublicKeyDer: csrPublicKeyDer(input.csr),
        signedAt: input.signed_at,
        signature: input.signature,
        caCertPem: authority.caCertPem,
      });
      renewed = await renewAgentCertificate(deps.knex, { name: proven.name, presented: proven.fingerprint }, (link) =>
        issueAgentCertificate({ csrPem: input.csr, name: link.name, address: link.address, caCertPem: authority.caCertPem, caKeyPem: authority.caKeyPem }),
      );
    } catch (error) {
      if (error instanceof RenewalProofError) throw validationFailed({ [error.field]: [error.message] });
      if (error instanceof CsrError) throw validationFailed({ csr: [error.message] });
      if (error instanceof RenewalRefusal) throw forbidden(error.message);
      throw error;
    }
    ctx.state.log.info({ agent: renewed.link.name, fingerprint: renewed.certificate.fingerprint }, 'dev server renewed its certificate');
    return presentSignedCertificate(ctx, renewed, authority.caCertPem);
  });

  return router;
}

/**
 * The answer of a join and of a renewal: the certificate the control plane signed and its CA,
 * as PEM for install.sh and `devplein agent renew` (Accept: application/x-pem-file) or as JSON.
 */
function presentSignedCertificate(
  ctx: AppContext,
  signed: { link: { name: string }; certificate: { certPem: string; fingerprint: string; notAfter: Date } },
  caCertPem: string,
): AgentJoinJson | undefined {
  ctx.set('Cache-Control', 'no-store');
  if (ctx.accepts('json', 'application/x-pem-file') === 'application/x-pem-file') {
    ctx.type = 'application/x-pem-file';
    ctx.body = `${signed.certificate.certPem.trim()}\n${caCertPem.trim()}\n`;
    return undefined;
  }
  return {
    name: signed.link.name,
    commonName: agentCommonName(signed.link.name),
    certificate: signed.certificate.certPem,
    ca: caCertPem,
    fingerprint: signed.certificate.fingerprint,
    notAfter: signed.certificate.notAfter.toISOString(),
  };
}
