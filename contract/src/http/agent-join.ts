/**
 * A dev server joins and renews its certificate (issue 21, 35): no session and no CSRF token, the
 * request carries its own proof (a one-time join token, or the agent's current certificate and a
 * signature with its key). Both answer JSON, or the two PEMs (certificate first) for
 * `Accept: application/x-pem-file` (install.sh, `devplein agent renew`).
 */
import { z } from 'zod';
import { agentJoinJson } from '../agent-links.ts';
import { endpoint, file } from './endpoint.ts';

const PEM = 'application/x-pem-file';

const csr = z
  .string({ error: 'Stuur het certificaatverzoek (csr, PEM).' })
  .max(8_000, 'Het certificaatverzoek is te groot.')
  .regex(/-----BEGIN CERTIFICATE REQUEST-----/, 'Stuur het certificaatverzoek als PEM (-----BEGIN CERTIFICATE REQUEST-----).');

export const agentCa = endpoint({
  method: 'GET',
  path: '/api/agents/ca',
  access: 'public',
  summary: 'The link CA certificate (PEM): a joining server checks it against its join string before it spends the token. 404 while joining is off (no CA key).',
  answer: file(PEM),
});

export const joinAgent = endpoint({
  method: 'POST',
  path: '/api/agents/join',
  access: 'machine',
  summary:
    'A dev server that was invited redeems its one-time token (Authorization: Bearer <token>; unknown 401, used or expired 410) with an EC P-256 CSR (else 422, the token still works): a certificate for `agent-<name>` (serverAuth only) signed by the link CA, pinned at once, and the CA. Rate-limited per address: 10 attempts a minute (429).',
  body: z.object({ csr }),
  answer: file(PEM, agentJoinJson),
});

export const renewAgentCertificate = endpoint({
  method: 'POST',
  path: '/api/agents/renew',
  access: 'machine',
  summary:
    "A joined agent renews its certificate: its current one (the link CA's, still valid, the pin or the pin renewed from of an active link) and a signature by its key over the CSR and a time within 5 minutes. A new certificate for the same name and address, pinned at once. 422 for bad input, 403 for a certificate that is no (longer a) pinned one; 10 a minute per address (429).",
  body: z.object({
    certificate: z
      .string({ error: 'Stuur het huidige certificaat van de agent (certificate, PEM).' })
      .max(8_000, 'Het certificaat is te groot.')
      .regex(/-----BEGIN CERTIFICATE-----/, 'Stuur het huidige certificaat als PEM (-----BEGIN CERTIFICATE-----).'),
    csr,
    signed_at: z.string({ error: 'Stuur het tijdstip van de handtekening (signed_at, ISO 8601).' }).max(40, 'Het tijdstip is te lang.'),
    signature: z
      .string({ error: 'Stuur de handtekening met de huidige sleutel (signature, base64).' })
      .max(400, 'De handtekening is te lang.')
      .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'Stuur de handtekening als base64.'),
  }),
  answer: file(PEM, agentJoinJson),
});

export const agentJoinEndpoints = [agentCa, joinAgent, renewAgentCertificate];
