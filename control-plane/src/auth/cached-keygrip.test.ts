import { randomUUID } from 'node:crypto';
import Keygrip from 'keygrip';
import { describe, expect, it } from 'vitest';
import { CachedKeygrip } from './cached-keygrip.ts';

describe('CachedKeygrip', () => {
  const keys = ['nieuwe-sleutel-0123456789', 'oude-sleutel-0123456789'];
  const keygrip = new Keygrip(keys);
  const oldKeyOnly = new Keygrip([keys[1] as string]);
  const values = [`devplein_session=${randomUUID()}`, 'devplein_session=déf/+=', '', 'x'.repeat(500)];

  it('signs, verifies and indexes as keygrip does, for old keys too, first time and remembered alike', () => {
    const signer = new CachedKeygrip(keys, 2);
    for (const value of values) expect(signer.sign(value)).toBe(keygrip.sign(value));
    for (const value of [...values, ...values]) {
      const digests = [keygrip.sign(value), oldKeyOnly.sign(value), 'vervalst', keygrip.sign(`${value}!`)];
      for (const digest of digests) {
        expect(signer.index(value, digest)).toBe(keygrip.index(value, digest));
        expect(signer.verify(value, digest)).toBe(keygrip.verify(value, digest));
      }
    }
  });

  it('remembers only verified session-id-shaped values, at most maxEntries of them', () => {
    const signer = new CachedKeygrip(keys, 3);
    // Made-up signatures and values of another shape (large ones included) are never kept.
    for (let index = 0; index < 50; index++) signer.verify(`devplein_session=${randomUUID()}`, 'vervalst');
    signer.verify(`devplein_session=${'a'.repeat(16_000)}`, keygrip.sign(`devplein_session=${'a'.repeat(16_000)}`));
    expect(signer.size).toBe(0);
    for (let index = 0; index < 10; index++) {
      const value = `__Host-devplein_session=${randomUUID()}`;
      expect(signer.verify(value, keygrip.sign(value))).toBe(true);
    }
    expect(signer.size).toBe(3);
  });

  it('refuses a wrong signature for a remembered value', () => {
    const signer = new CachedKeygrip(keys);
    const value = `devplein_session=${randomUUID()}`;
    const digest = keygrip.sign(value);
    expect(signer.verify(value, digest)).toBe(true);
    expect(signer.verify(value, `${digest.slice(0, -1)}${digest.endsWith('A') ? 'B' : 'A'}`)).toBe(false);
    expect(signer.verify(value, '')).toBe(false);
    expect(signer.verify(value, digest)).toBe(true);
  });
});
