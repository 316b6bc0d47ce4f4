import 'reflect-metadata';
import { createPrivateKey, createPublicKey, randomBytes, webcrypto, X509Certificate as NodeX509 } from 'node:crypto';
import { isIP } from 'node:net';
import * as x509 from '@peculiar/x509';

/*
 * Issues a dev server's agent certificate from its certificate signing request (issue 21).
 * node:crypto can read certificates but not make them; @peculiar/x509 (TypeScript, on WebCrypto,
 * maintained, EC keys) does. node-forge was the alternative but signs RSA only, and the link's CA
 * is EC P-256 (deploy/certs/make-certs.sh).
 *
 * What holds: the CSR only contributes its public key (EC P-256, proven by its own signature).
 * Its subject and SANs are ignored: the certificate always says CN and SAN `agent-<name>` (the
 * name the control plane chose) plus the host of the link's address, CA:FALSE,
 * digitalSignature, extendedKeyUsage serverAuth only. So a joining server can never get a
 * certificate that poses as the control plane (CN devplein-control-plane, clientAuth).
 */

x509.cryptoProvider.set(webcrypto as Crypto);

/** Lifetime of a joined agent's certificate: re-join (invite again) within a year. */
export const AGENT_CERT_DAYS = 365;

/** A CSR that cannot be signed; `message` is Dutch (the join endpoint answers it with 422). */
export class CsrError extends Error {}

/** The certificate subject and SAN name of a joined dev server. */
export function agentCommonName(name: string): string {
  return `agent-${name}`;
}

/** sha256 of a PEM certificate's DER, lowercase hex without colons. */
export function certificateFingerprint(pem: string | Buffer): string {
  return new NodeX509(pem).fingerprint256.replace(/:/g, '').toLowerCase();
}

/** The host part of host:port (brackets of an IPv6 address removed). */
export function hostOfAddress(address: string): string {
  const host = address.slice(0, address.lastIndexOf(':'));
  return host.startsWith('[') ? host.slice(1, -1) : host;
}

export interface IssueAgentCertificateInput {
  csrPem: string;
  /** The link's name (devplein agent invite <name>). */
  name: string;
  /** host:port of the agent as the control plane dials it. */
  address: string;
  caCertPem: string;
  caKeyPem: string;
  now?: Date;
}

export interface IssuedAgentCertificate {
  certPem: string;
  fingerprint: string;
  notAfter: Date;
}

async function readCsr(csrPem: string): Promise<x509.Pkcs10CertificateRequest> {
  let csr: x509.Pkcs10CertificateRequest;
  try {
    csr = new x509.Pkcs10CertificateRequest(csrPem);
  } catch {
    throw new CsrError('Dit is geen geldig certificaatverzoek (CSR in PEM).');
  }
  const key = createPublicKey({ key: Buffer.from(csr.publicKey.rawData), format: 'der', type: 'spki' });
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new CsrError('De sleutel van het certificaatverzoek moet EC P-256 zijn (openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256).');
  }
  let valid = false;
  try {
    valid = await csr.verify();
  } catch {
    valid = false;
  }
  if (!valid) throw new CsrError('De handtekening van het certificaatverzoek klopt niet.');
  return csr;
}

/** The CSR's public key (SPKI DER), for comparing it with the key renewed from. Throws CsrError. */
export function csrPublicKeyDer(csrPem: string): Buffer {
  try {
    return Buffer.from(new x509.Pkcs10CertificateRequest(csrPem).publicKey.rawData);
  } catch {
    throw new CsrError('Dit is geen geldig certificaatverzoek (CSR in PEM).');
  }
}

async function signingKey(caKeyPem: string): Promise<CryptoKey> {
  const key = createPrivateKey(caKeyPem);
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new Error('the agent link CA key (AGENT_CA_KEY_FILE) must be EC P-256, as deploy/certs/make-certs.sh makes it');
  }
  const der = key.export({ format: 'der', type: 'pkcs8' });
  return webcrypto.subtle.importKey('pkcs8', der, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']) as Promise<CryptoKey>;
}

/** Checks the CSR and signs `agent-<name>` (serverAuth only) with the link CA. Throws CsrError for a bad CSR. */
export async function issueAgentCertificate(input: IssueAgentCertificateInput): Promise<IssuedAgentCertificate> {
  const csr = await readCsr(input.csrPem);
  const ca = new x509.X509Certificate(input.caCertPem);
  const now = input.now ?? new Date();
  const notBefore = new Date(now.getTime() - 5 * 60_000);
  const notAfter = new Date(now.getTime() + AGENT_CERT_DAYS * 86_400_000);
  const commonName = agentCommonName(input.name);
  const host = hostOfAddress(input.address);
  const names: x509.JsonGeneralName[] = [{ type: 'dns', value: commonName }];
  if (host && host !== commonName) names.push(isIP(host) ? { type: 'ip', value: host } : { type: 'dns', value: host });
  const serial = randomBytes(16);
  serial[0] = (serial[0] as number) & 0x7f;
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: serial.toString('hex'),
    subject: `CN=${commonName}`,
    issuer: ca.subject,
    notBefore,
    notAfter,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    publicKey: csr.publicKey,
    signingKey: await signingKey(input.caKeyPem),
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth], false),
      new x509.SubjectAlternativeNameExtension(names, false),
      await x509.SubjectKeyIdentifierExtension.create(csr.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(ca),
    ],
  });
  const certPem = certificate.toString('pem');
  return { certPem: `${certPem.trim()}\n`, fingerprint: certificateFingerprint(certPem), notAfter };
}
