import { createHash, verify, X509Certificate } from 'node:crypto';
import { certificateFingerprint } from './agent-certificate.ts';

/*
 * What a joined agent sends to renew its certificate without a new invitation (issue 21): its
 * current certificate, a CSR for a key it just made, and a signature with its CURRENT key over
 * `devplein-agent-renew\n<signed_at>\n<sha256 of the CSR PEM>`. The control plane sits behind
 * Caddy, which ends TLS, so the agent's certificate cannot be checked as a TLS client
 * certificate there (and it is serverAuth only); this signature is the same proof of possession
 * a TLS handshake would make, bound to this one CSR and to a 5-minute window.
 */

export const RENEW_WINDOW_MS = 5 * 60_000;

/** The bytes the agent signs (host-agent/src/cert-renew.ts makes the same). */
export function renewalMessage(signedAt: string, csrPem: string): Buffer {
  const csrHash = createHash('sha256').update(csrPem.trim(), 'utf8').digest('hex');
  return Buffer.from(`devplein-agent-renew\n${signedAt}\n${csrHash}`, 'utf8');
}

/** A renewal that cannot be accepted; `field` names the input, `message` is Dutch. */
export class RenewalProofError extends Error {
  constructor(
    readonly field: 'certificate' | 'signed_at' | 'signature' | 'csr',
    message: string,
  ) {
    super(message);
  }
}

export interface ProvenAgent {
  /** The link name from CN agent-<name>. */
  name: string;
  /** sha256 of the presented certificate. */
  fingerprint: string;
}

/**
 * Checks the presented certificate (signed by the link CA, valid now, CN agent-<name>) and the
 * signature with its key over this CSR and time. Throws RenewalProofError; the link's pin is
 * checked afterwards (renewAgentCertificate).
 */
export function verifyRenewalProof(input: { certificatePem: string; csrPem: string; csrPublicKeyDer: Buffer; signedAt: string; signature: string; caCertPem: string; now?: Date }): ProvenAgent {
  const now = input.now ?? new Date();
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(input.certificatePem);
  } catch {
    throw new RenewalProofError('certificate', 'Dit is geen certificaat in PEM.');
  }
  const ca = new X509Certificate(input.caCertPem);
  if (!certificate.checkIssued(ca) || !certificate.verify(ca.publicKey)) throw new RenewalProofError('certificate', 'Dit certificaat is niet door de CA van de agentverbinding ondertekend.');
  if (new Date(certificate.validFrom).getTime() > now.getTime() || new Date(certificate.validTo).getTime() <= now.getTime()) {
    throw new RenewalProofError('certificate', 'Dit certificaat is niet (meer) geldig: een verlopen certificaat vernieuwt niet, nodig de server opnieuw uit.');
  }
  const name = /^CN=agent-([a-z0-9-]+)$/.exec(certificate.subject)?.[1];
  if (!name) throw new RenewalProofError('certificate', 'Dit is geen certificaat van een ontwikkelserver (CN agent-<naam>).');
  const signedAt = Date.parse(input.signedAt);
  if (!/^\d{4}-\d\d-\d\dT/.test(input.signedAt) || Number.isNaN(signedAt) || Math.abs(signedAt - now.getTime()) > RENEW_WINDOW_MS) {
    throw new RenewalProofError('signed_at', 'Het tijdstip van de handtekening ligt meer dan 5 minuten van nu: zet de klok van de server gelijk (NTP).');
  }
  let valid = false;
  try {
    valid = verify('sha256', renewalMessage(input.signedAt, input.csrPem), certificate.publicKey, Buffer.from(input.signature, 'base64'));
  } catch {
    valid = false;
  }
  if (!valid) throw new RenewalProofError('signature', 'De handtekening klopt niet met de sleutel van dit certificaat.');
  if (certificate.publicKey.export({ format: 'der', type: 'spki' }).equals(input.csrPublicKeyDer)) {
    throw new RenewalProofError('csr', 'Maak voor het nieuwe certificaat een nieuwe sleutel.');
  }
  return { name, fingerprint: certificateFingerprint(input.certificatePem) };
}
