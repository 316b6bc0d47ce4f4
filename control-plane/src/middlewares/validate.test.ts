import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fieldErrorsOf, UNSTORABLE_TEXT_MESSAGE, unstorableTextErrors } from './validate.ts';

describe('messages without a custom text', () => {
  it('are Dutch (zod\'s nl locale), not zod\'s English', () => {
    const schema = z.object({ name: z.string().min(3), count: z.number().int(), kind: z.enum(['a', 'b']), missing: z.string() });
    const result = schema.safeParse({ name: 'x', count: 1.5, kind: 'c' });
    expect(result.success).toBe(false);
    const errors = fieldErrorsOf(result.error!);
    expect(errors.name).toEqual(['Te kort: verwacht dat string >=3 tekens heeft']);
    expect(errors.missing?.[0]).toMatch(/^Ongeldige invoer/);
    for (const message of Object.values(errors).flat()) expect(message).not.toMatch(/\b(Invalid|Too small|expected|received)\b/);
  });

  it('leave a custom text alone', () => {
    const result = z.string({ error: 'Vul een naam in.' }).safeParse(3);
    expect(result.error?.issues[0]?.message).toBe('Vul een naam in.');
  });
});

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
