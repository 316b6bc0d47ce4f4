import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateWireGuardKeyPair, isWireGuardKey, publicKeyOf } from './keys.ts';

describe('WireGuard keys', () => {
  it('accepts base64 of exactly 32 bytes only', () => {
    expect(isWireGuardKey(randomBytes(32).toString('base64'))).toBe(true);
    expect(isWireGuardKey(randomBytes(31).toString('base64'))).toBe(false);
    expect(isWireGuardKey(randomBytes(33).toString('base64'))).toBe(false);
    expect(isWireGuardKey(randomBytes(32).toString('base64url'))).toBe(false);
    expect(isWireGuardKey(`${randomBytes(32).toString('base64')}\n`)).toBe(false);
    expect(isWireGuardKey(` ${randomBytes(32).toString('base64')}`)).toBe(false);
    expect(isWireGuardKey('')).toBe(false);
    // Non-canonical padding bits: decodes to 32 bytes but is not how wg prints a key.
    const key = randomBytes(32).toString('base64');
    expect(Buffer.from(`${key.slice(0, 42)}B=`, 'base64').length).toBe(32);
    expect(isWireGuardKey(`${key.slice(0, 42)}B=`)).toBe(false);
  });

  it('derives the public key of a new pair', () => {
    const pair = generateWireGuardKeyPair();
    expect(isWireGuardKey(pair.privateKey)).toBe(true);
    expect(isWireGuardKey(pair.publicKey)).toBe(true);
    expect(publicKeyOf(pair.privateKey)).toBe(pair.publicKey);
    expect(() => publicKeyOf('nope')).toThrow(/private key/);
  });

  it('matches `wg pubkey` (wireguard-tools)', () => {
    const pair = generateWireGuardKeyPair();
    expect(execFileSync('wg', ['pubkey'], { input: `${pair.privateKey}\n` }).toString().trim()).toBe(pair.publicKey);
  });
});
