import { z } from 'zod';

/** A flag from JSON (true/false) or a query string ('true', '1'). */
const flag = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0', ''])], { error: 'all moet true of false zijn.' })
  .transform((value) => value === true || value === 'true' || value === '1');

/** POST /api/users/search body: {part, all?}. Only non-empty input searches (spec §5). */
export const userSearchInput = z.object({
  part: z
    .string({ error: 'Vul een zoekterm in.' })
    .trim()
    .min(1, 'Vul een zoekterm in.')
    .max(100, 'Zoek op hoogstens 100 tekens.'),
  all: flag.optional(),
});

/** POST /api/users/search?all=true (spec §7). */
export const userSearchQuery = z.object({ all: flag.optional() });
