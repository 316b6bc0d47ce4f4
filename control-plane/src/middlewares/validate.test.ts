import { describe, expect, it } from 'vitest';
import { UNSTORABLE_TEXT_MESSAGE, unstorableTextErrors } from './validate.ts';

describe('text PostgreSQL cannot store', () => {
  it('names each field with a NUL or an unpaired surrogate, by its path', () => {
    expect(
      unstorableTextErrors({ title: 'a\u0000b', body: 'x\udfff', list: ['ok', '\ud800y'], nested: { deep: 'z\udc00' }, fine: 'é😀\u{1F469}\u200D\u{1F467}' }),
    ).toEqual({
      title: [UNSTORABLE_TEXT_MESSAGE],
      body: [UNSTORABLE_TEXT_MESSAGE],
      'list.1': [UNSTORABLE_TEXT_MESSAGE],
      'nested.deep': [UNSTORABLE_TEXT_MESSAGE],
    });
  });

  it('accepts paired surrogates, other control characters and non-strings', () => {
    expect(unstorableTextErrors({ emoji: '😀', tab: '\t\n\u0007', n: 1, b: true, none: null, list: [1, 'a'] })).toEqual({});
    expect(unstorableTextErrors('\u0000')).toEqual({ body: [UNSTORABLE_TEXT_MESSAGE] });
  });
});
