import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox, deriveDevelopmentKey } from './secret-box.ts';

describe('secret box', () => {
  const box = createSecretBox(randomBytes(32));

  it('opens what it sealed, and seals the same text differently each time', () => {
    const sealed = box.seal('geheim-wachtwoord');
    expect(sealed).not.toContain('geheim');
    expect(box.open(sealed)).toBe('geheim-wachtwoord');
    expect(box.seal('geheim-wachtwoord')).not.toBe(sealed);
  });

  it('refuses a changed value and one sealed with another key', () => {
    const sealed = box.seal('x');
    const tampered = `${sealed.slice(0, -2)}${sealed.endsWith('AA') ? 'BB' : 'AA'}`;
    expect(() => box.open(tampered)).toThrow();
    expect(() => createSecretBox(randomBytes(32)).open(sealed)).toThrow();
    expect(() => box.open('plain text')).toThrow();
  });

  it('derives a stable 32-byte development key', () => {
    expect(deriveDevelopmentKey('s'.repeat(40))).toEqual(deriveDevelopmentKey('s'.repeat(40)));
    expect(deriveDevelopmentKey('s'.repeat(40))).toHaveLength(32);
  });
});
