import { execFileSync } from 'node:child_process';
import { createPrivateKey, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrPublicKeyDer, issueAgentCertificate } from './agent-certificate.ts';
import { RenewalProofError, renewalMessage, verifyRenewalProof } from './renewal-proof.ts';

let dir: string;
let caCertPem: string;
let caKeyPem: string;

function openssl(args: string[]): string {
  return execFileSync('openssl', args, { cwd: dir, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
}

/** A fresh P-256 key (its file name) and a CSR for it. */
function keyAndCsr(name: string): { keyPem: string; csrPem: string } {
  openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', `${name}.pem`]);
  return { keyPem: readFileSync(path.join(dir, `${name}.pem`), 'utf8'), csrPem: openssl(['req', '-new', '-key', `${name}.pem`, '-subj', '/CN=x']) };
}

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'devplein-renewal-proof-'));
  execFileSync(path.resolve(import.meta.dirname, '../../../deploy/certs/make-certs.sh'), [dir], { stdio: 'ignore' });
  caCertPem = readFileSync(path.join(dir, 'ca.pem'), 'utf8');
  caKeyPem = readFileSync(path.join(dir, 'ca-key.pem'), 'utf8');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** dev2's current certificate and key, a new CSR, signed as host-agent/src/bin/cert-renew.ts does. */
async function proofInput(options: { issuedAt?: Date; signedAt?: Date; signWith?: 'current' | 'new'; sameKey?: boolean } = {}) {
  const current = keyAndCsr(`current-${Math.random().toString(36).slice(2)}`);
  const issued = await issueAgentCertificate({ csrPem: current.csrPem, name: 'dev2', address: '10.0.0.2:7443', caCertPem, caKeyPem, now: options.issuedAt });
  const next = options.sameKey ? current : keyAndCsr(`next-${Math.random().toString(36).slice(2)}`);
  const signedAt = (options.signedAt ?? new Date()).toISOString();
  const key = options.signWith === 'new' ? next.keyPem : current.keyPem;
  const signature = sign('sha256', renewalMessage(signedAt, next.csrPem), createPrivateKey(key)).toString('base64');
  return { certificatePem: issued.certPem, csrPem: next.csrPem, csrPublicKeyDer: csrPublicKeyDer(next.csrPem), signedAt, signature, caCertPem, fingerprint: issued.fingerprint };
}

function refusal(run: () => unknown): { field: string; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof RenewalProofError) return { field: error.field, message: error.message };
    throw error;
  }
  throw new Error('not refused');
}

describe('verifyRenewalProof', () => {
  it('accepts the current certificate with its key signing the new CSR: the name and the presented fingerprint', async () => {
    const input = await proofInput();
    expect(verifyRenewalProof(input)).toEqual({ name: 'dev2', fingerprint: input.fingerprint });
  });

  it('refuses a signature by another key than the certificate\'s (the new key, say)', async () => {
    const input = await proofInput({ signWith: 'new' });
    expect(refusal(() => verifyRenewalProof(input))).toEqual({ field: 'signature', message: 'De handtekening klopt niet met de sleutel van dit certificaat.' });
  });

  it('refuses a signature bound to another CSR', async () => {
    const input = await proofInput();
    const other = keyAndCsr('other');
    expect(refusal(() => verifyRenewalProof({ ...input, csrPem: other.csrPem, csrPublicKeyDer: csrPublicKeyDer(other.csrPem) })).field).toBe('signature');
  });

  it('refuses a time outside 5 minutes (a replayed request) and one that is no ISO time', async () => {
    const stale = await proofInput({ signedAt: new Date(Date.now() - 6 * 60_000) });
    expect(refusal(() => verifyRenewalProof(stale))).toMatchObject({ field: 'signed_at' });
    const input = await proofInput();
    expect(refusal(() => verifyRenewalProof({ ...input, signedAt: 'gisteren' })).field).toBe('signed_at');
  });

  it('refuses an ended certificate, one of another CA, and the same key again', async () => {
    const ended = await proofInput({ issuedAt: new Date(Date.now() - 366 * 86_400_000) });
    expect(refusal(() => verifyRenewalProof(ended)).message).toContain('niet (meer) geldig');
    const otherCa = mkdtempSync(path.join(dir, 'other-ca-'));
    execFileSync(path.resolve(import.meta.dirname, '../../../deploy/certs/make-certs.sh'), [otherCa], { stdio: 'ignore' });
    const input = await proofInput();
    expect(refusal(() => verifyRenewalProof({ ...input, caCertPem: readFileSync(path.join(otherCa, 'ca.pem'), 'utf8') })).message).toContain('niet door de CA');
    expect(refusal(() => verifyRenewalProof({ ...input, certificatePem: 'geen pem' })).field).toBe('certificate');
    const same = await proofInput({ sameKey: true });
    expect(refusal(() => verifyRenewalProof(same))).toEqual({ field: 'csr', message: 'Maak voor het nieuwe certificaat een nieuwe sleutel.' });
  });

  it('refuses the control plane\'s own client certificate (not agent-<name>)', async () => {
    const input = await proofInput();
    const clientPem = readFileSync(path.join(dir, 'control-plane.pem'), 'utf8');
    expect(refusal(() => verifyRenewalProof({ ...input, certificatePem: clientPem })).message).toContain('CN agent-<naam>');
  });
});
