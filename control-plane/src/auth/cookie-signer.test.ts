import Keygrip from 'keygrip';
import { describe, expect, it } from 'vitest';
import { CookieSigner } from './cookie-signer.ts';

describe('CookieSigner', () => {
  const keys = ['nieuwe-sleutel-0123456789', 'oude-sleutel-0123456789'];
  const keygrip = new Keygrip(keys);
  const signer = new CookieSigner(keys, 2);
  const values = ['devplein_session=abc', 'devplein_session=déf/+=', '', 'x'.repeat(500)];

  it('signs as keygrip does (HMAC-SHA1, base64url, newest key)', () => {
    for (const value of values) expect(signer.sign(value)).toBe(keygrip.sign(value));
  });

  it('answers index and verify as keygrip does, also past its memory and for old keys', () => {
    const oldKeyOnly = new Keygrip([keys[1] as string]);
    for (const value of [...values, ...values]) {
      const digests = [keygrip.sign(value), oldKeyOnly.sign(value), 'vervalst', keygrip.sign(`${value}!`)];
      for (const digest of digests) {
        expect(signer.index(value, digest)).toBe(keygrip.index(value, digest));
        expect(signer.verify(value, digest)).toBe(keygrip.verify(value, digest));
      }
    }
  });
});
