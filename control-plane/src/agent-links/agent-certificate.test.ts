import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { certificateFingerprint, CsrError, issueAgentCertificate } from './agent-certificate.ts';

let dir: string;
let caCertPem: string;
let caKeyPem: string;

function openssl(args: string[], input?: string): string {
  return execFileSync('openssl', args, { cwd: dir, input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
}

/** A CSR for a fresh key of the given openssl genpkey arguments and subject/extensions. */
function csr(keyArgs: string[], subject: string, extraArgs: string[] = []): string {
  const key = path.join(dir, `key-${Math.random().toString(36).slice(2)}.pem`);
  openssl(['genpkey', ...keyArgs, '-out', key]);
  return openssl(['req', '-new', '-key', key, '-subj', subject, ...extraArgs]);
}

const p256 = ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256'];

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'devplein-agent-cert-'));
  execFileSync(path.resolve(import.meta.dirname, '../../../deploy/certs/make-certs.sh'), [dir], { stdio: 'ignore' });
  caCertPem = readFileSync(path.join(dir, 'ca.pem'), 'utf8');
  caKeyPem = readFileSync(path.join(dir, 'ca-key.pem'), 'utf8');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('issueAgentCertificate', () => {
  it('ignores a CSR that asks for devplein-control-plane: the certificate is agent-<name>, serverAuth only, signed by the CA', async () => {
    const request = csr(p256, '/CN=devplein-control-plane', ['-addext', 'extendedKeyUsage=clientAuth', '-addext', 'subjectAltName=DNS:devplein-control-plane']);
    const issued = await issueAgentCertificate({ csrPem: request, name: 'dev2', address: 'dev2.school.nl:7443', caCertPem, caKeyPem });
    const cert = new X509Certificate(issued.certPem);
    expect(cert.subject).toBe('CN=agent-dev2');
    expect(cert.subjectAltName).toBe('DNS:agent-dev2, DNS:dev2.school.nl');
    expect(cert.checkIssued(new X509Certificate(caCertPem))).toBe(true);
    expect(cert.verify(new X509Certificate(caCertPem).publicKey)).toBe(true);
    expect(cert.ca).toBe(false);
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(issued.fingerprint).toBe(certificateFingerprint(issued.certPem));
    expect(issued.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    // openssl agrees: a TLS server certificate of this CA, no client certificate.
    writeFileSync(path.join(dir, 'issued.pem'), issued.certPem);
    expect(openssl(['verify', '-CAfile', 'ca.pem', '-purpose', 'sslserver', 'issued.pem'])).toContain('issued.pem: OK');
    expect(() => openssl(['verify', '-CAfile', 'ca.pem', '-purpose', 'sslclient', 'issued.pem'])).toThrow();
  });

  it('puts an IP address of the link in the SAN as an IP', async () => {
    const issued = await issueAgentCertificate({ csrPem: csr(p256, '/CN=x'), name: 'dev3', address: '10.0.0.7:7443', caCertPem, caKeyPem });
    expect(new X509Certificate(issued.certPem).subjectAltName).toBe('DNS:agent-dev3, IP Address:10.0.0.7');
  });

  it('refuses a CSR that is no CSR, has another key type, or a broken signature', async () => {
    const input = { name: 'dev2', address: 'localhost:7443', caCertPem, caKeyPem };
    await expect(issueAgentCertificate({ ...input, csrPem: 'hallo' })).rejects.toBeInstanceOf(CsrError);
    await expect(issueAgentCertificate({ ...input, csrPem: csr(['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048'], '/CN=x') })).rejects.toThrow(/EC P-256/);
    await expect(issueAgentCertificate({ ...input, csrPem: csr(['-algorithm', 'ED25519'], '/CN=x') })).rejects.toThrow(/EC P-256/);
    // Flip a byte inside the signature (the end of the DER).
    const good = csr(p256, '/CN=x');
    const der = Buffer.from(good.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    der[der.length - 5] = (der[der.length - 5] as number) ^ 0xff;
    const broken = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64').replace(/.{64}/g, '$&\n')}\n-----END CERTIFICATE REQUEST-----\n`;
    await expect(issueAgentCertificate({ ...input, csrPem: broken })).rejects.toThrow(CsrError);
  });
});
