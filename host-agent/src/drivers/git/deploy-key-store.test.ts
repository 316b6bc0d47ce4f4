import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { seal, unseal } from './deploy-key-store.ts';

describe('seal', () => {
  it('opens with the same key and context only, and never holds the plain text', () => {
    const key = randomBytes(32);
    const plain = Buffer.from('-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----\n');
    const box = seal(key, plain, 'devplein-deploy-key:1');
    expect(JSON.stringify(box)).not.toContain('OPENSSH');
    expect(unseal(key, box, 'devplein-deploy-key:1').equals(plain)).toBe(true);
    expect(() => unseal(key, box, 'devplein-deploy-key:2')).toThrow();
    expect(() => unseal(randomBytes(32), box, 'devplein-deploy-key:1')).toThrow();
    expect(seal(key, plain, 'x').iv).not.toBe(seal(key, plain, 'x').iv);
  });
});
