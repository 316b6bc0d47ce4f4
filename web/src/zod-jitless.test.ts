import { describe, expect, it } from 'vitest';
import { z } from './zod-jitless.ts';

describe("the web app's zod", () => {
  it('words a message without a custom text in Dutch', () => {
    const result = z.object({ domain: z.string().max(3) }).safeParse({ domain: 'abcdef' });
    expect(result.error?.issues[0]?.message).toBe('Te lang: verwacht dat string <=3 tekens heeft');
  });
});
