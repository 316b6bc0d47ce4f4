import { beforeAll, describe, expect, it } from 'vitest';
import { isValidSshKeyFormat } from '@devplein/contract/validation/sshKeyFormat';
import { describeStoredSshKey, parseSshPublicKey } from './ssh-public-key.ts';
import { generateSshKeys, type GeneratedSshKey } from '../../../tests/support/fixtures/ssh-keygen-fixtures.ts';

let keys: GeneratedSshKey[];
let unsupported: string[];

beforeAll(() => {
  ({ keys, unsupported } = generateSshKeys());
});

const key = (kind: string): GeneratedSshKey => {
  const found = keys.find((k) => k.kind === kind);
  if (!found) throw new Error(`ssh-keygen made no ${kind} key`);
  return found;
};

/** The key text with the base64 body changed by `change`. */
function withBody(text: string, change: (body: string) => string): string {
  const [type = '', body = '', ...comment] = text.split(' ');
  return [type, change(body), ...comment].join(' ');
}

/** Replaces one base64 character at `index` by a different one. */
const flipAt = (body: string, index: number): string =>
  `${body.slice(0, index)}${body[index] === 'A' ? 'B' : 'A'}${body.slice(index + 1)}`;

describe('parsing SSH public keys made by ssh-keygen', () => {
  it('gets every type of spec §5 from the installed ssh-keygen (only DSA may be missing)', () => {
    expect(unsupported.filter((kind) => kind !== 'dsa-1024')).toEqual([]);
    expect(keys.length).toBeGreaterThanOrEqual(6);
  });

  it('accepts every generated key by the format rule and by the real parse, with the fingerprint ssh-keygen prints', () => {
    for (const generated of keys) {
      expect(isValidSshKeyFormat(generated.publicKey), generated.kind).toBe(true);
      const parsed = parseSshPublicKey(generated.publicKey);
      expect(parsed, generated.kind).not.toBeNull();
      expect(parsed?.fingerprint, generated.kind).toBe(generated.fingerprint);
      expect(parsed?.fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
      expect(parsed?.bits, generated.kind).toBe(generated.bits);
      expect(parsed?.label, generated.kind).toBe(generated.label);
      expect(parsed?.comment).toBe(generated.comment);
      // Stored without the comment, re-encoded from the parsed key: the same bytes ssh-keygen wrote.
      expect(parsed?.normalized).toBe(generated.publicKey.split(' ').slice(0, 2).join(' '));
    }
  });

  it('accepts the stored (normalised) text again with the same fingerprint', () => {
    for (const generated of keys) {
      const parsed = parseSshPublicKey(generated.publicKey);
      expect(parseSshPublicKey(parsed?.normalized ?? '')?.fingerprint).toBe(generated.fingerprint);
      expect(describeStoredSshKey(parsed?.normalized ?? '')).toEqual({ label: generated.label, bits: generated.bits });
    }
  });

  it('refuses truncated keys of every type (cut short by 4 and 8 characters, and at half)', () => {
    for (const generated of keys) {
      for (const cut of [(b: string) => b.slice(0, -4), (b: string) => b.slice(0, -8), (b: string) => b.slice(0, b.length >> 1)]) {
        expect(parseSshPublicKey(withBody(generated.publicKey, cut)), generated.kind).toBeNull();
      }
    }
  });

  it('refuses keys with bytes appended to a valid body', () => {
    for (const generated of keys) {
      const padded = withBody(generated.publicKey, (body) => `${body.replace(/=+$/, '')}AAAAAAAA`);
      expect(parseSshPublicKey(padded), generated.kind).toBeNull();
    }
  });

  it('refuses every type with a flipped character in a length field (the structure no longer adds up)', () => {
    for (const generated of keys) {
      // Characters 20..27 encode the length of the first field after the type name (or its start).
      const header = generated.kind === 'ed25519' ? 21 : generated.kind.startsWith('ecdsa') ? 33 : 17;
      expect(parseSshPublicKey(withBody(generated.publicKey, (body) => flipAt(body, header))), generated.kind).toBeNull();
    }
  });

  it('refuses ECDSA and DSA keys with a character flipped anywhere in the middle (off the curve / group)', () => {
    for (const generated of keys.filter((k) => k.kind.startsWith('ecdsa') || k.kind.startsWith('dsa'))) {
      const body = generated.publicKey.split(' ')[1] ?? '';
      for (let index = 45; index < body.length - 4; index += Math.max(1, Math.floor(body.length / 25))) {
        expect(parseSshPublicKey(withBody(generated.publicKey, (b) => flipAt(b, index))), `${generated.kind} @${index}`).toBeNull();
      }
    }
  });

  it('refuses an RSA modulus that cannot be a product of two large primes (even)', () => {
    for (const generated of keys.filter((k) => k.kind.startsWith('rsa'))) {
      const blob = Buffer.from(generated.publicKey.split(' ')[1] ?? '', 'base64');
      blob[blob.length - 1] = (blob[blob.length - 1] ?? 0) & 0xfe;
      expect(parseSshPublicKey(`ssh-rsa ${blob.toString('base64')} x`), generated.kind).toBeNull();
    }
  });

  it('refuses an Ed25519 key whose 32 bytes are not a point of the curve', () => {
    const blob = Buffer.from(key('ed25519').publicKey.split(' ')[1] ?? '', 'base64');
    // y = 2^255 - 1 is not below the field prime, so it is no point at all.
    blob.fill(0xff, blob.length - 32);
    blob[blob.length - 1] = 0x7f;
    expect(parseSshPublicKey(`ssh-ed25519 ${blob.toString('base64')} x`)).toBeNull();
  });

  it('refuses a key whose type word does not match its body, and pasted private keys', () => {
    const ed25519Body = key('ed25519').publicKey.split(' ')[1];
    expect(parseSshPublicKey(`ssh-rsa ${ed25519Body}`)).toBeNull();
    expect(parseSshPublicKey(key('ecdsa-256').publicKey.replace('nistp256 ', 'nistp384 '))).toBeNull();
    for (const generated of keys) expect(parseSshPublicKey(generated.privateKey), generated.kind).toBeNull();
  });

  it('answers quickly for long hostile input (no regular-expression backtracking blow-up)', () => {
    const started = performance.now();
    parseSshPublicKey(`ssh-rsa AAAAB3NzaC1yc2E${'A'.repeat(16_000)}=\n`);
    parseSshPublicKey(`ssh-rsa AAAAB3NzaC1yc2E${'A'.repeat(8_000)} ${' x'.repeat(4_000)}\n!`);
    parseSshPublicKey(`ssh-rsa ${'\t'.repeat(16_000)}`);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('refuses empty text and the type alone', () => {
    expect(parseSshPublicKey('')).toBeNull();
    expect(parseSshPublicKey('ssh-rsa')).toBeNull();
    expect(parseSshPublicKey('ssh-rsa AAAAB3NzaC1yc2E')).toBeNull();
  });
});
