/** Searching people (spec §5, §7): POST /api/users/search, for every activated user (students pick project members with it). */
import { z } from 'zod';
import { userSearchHitJson } from '../users.ts';
import { endpoint, json } from './endpoint.ts';

/** A flag from JSON (true/false) or a query string ('true', '1'). */
const flag = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0', ''])], { error: 'all moet true of false zijn.' })
  .transform((value) => value === true || value === 'true' || value === '1');

/** The longest search term the server takes. */
export const USER_SEARCH_MAX_LENGTH = 100;

export const searchUsers = endpoint({
  method: 'POST',
  path: '/api/users/search',
  access: 'active',
  summary:
    'People by name or e-mail (case-insensitive, LIKE wildcards taken literally), at most 20: names that start with the part first. `all` finds not activated and disabled accounts, for admins only (ignored for others); admins also get each hit’s cohort and whether it is active.',
  /** ?all=true (spec §7), or `all` in the body. */
  query: z.object({ all: flag.optional() }),
  body: z.object({
    part: z
      .string({ error: 'Vul een zoekterm in.' })
      .trim()
      .min(1, 'Vul een zoekterm in.')
      .max(USER_SEARCH_MAX_LENGTH, `Zoek op hoogstens ${USER_SEARCH_MAX_LENGTH} tekens.`),
    all: flag.optional(),
  }),
  answer: json(z.array(userSearchHitJson)),
});

export const userSearchEndpoints = [searchUsers];
