import { describe, expect, it } from 'vitest';
import { containsPattern, escapeLike, prefixPattern } from './like-pattern.ts';

describe('LIKE patterns', () => {
  it('escapes %, _ and the backslash', () => {
    expect(escapeLike('50%_a\\b')).toBe('50\\%\\_a\\\\b');
  });

  it('wraps for contains and prefix searches', () => {
    expect(containsPattern('an%')).toBe('%an\\%%');
    expect(prefixPattern('a_')).toBe('a\\_%');
  });
});
