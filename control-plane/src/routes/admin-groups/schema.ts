import { z } from 'zod';
import { COHORT_PATTERN } from '@devplein/contract/validation/cohort';
import { databaseId } from '../admin-teams/schema.ts';

/**
 * GET /api/admin/groups?search=&counts=true. The search is at most 50 characters (the levels
 * page's selector relies on that limit's 422); counts adds member_count to each group.
 */
export const groupListQuery = z.object({
  search: z.string().trim().max(50, 'Zoek op hoogstens 50 tekens.').optional(),
  counts: z.enum(['true', 'false', '1', '0'], { error: 'counts moet true of false zijn.' }).optional(),
});

export const groupIdParams = z.object({ id: databaseId('Ongeldig groepsnummer.', 'Ongeldig groepsnummer.') });

export const groupMemberParams = z.object({
  id: databaseId('Ongeldig groepsnummer.', 'Ongeldig groepsnummer.'),
  userId: databaseId('Ongeldige gebruiker.', 'Ongeldige gebruiker.'),
});

/** PUT /api/admin/groups/{id}: {user} who moves into this group. */
export const groupMemberInput = z.object({ user: databaseId('Kies een gebruiker.', 'Ongeldige gebruiker.') });

export { COHORT_PATTERN };

/** POST /api/admin/groups: a new cohort, e.g. SD24; stored in capitals (the SD rule of §6 is case-sensitive). */
export const groupInput = z.object({
  cohort: z
    .string({ error: 'Vul een klas in, bijvoorbeeld SD24.' })
    .trim()
    .min(1, 'Vul een klas in, bijvoorbeeld SD24.')
    .regex(COHORT_PATTERN, 'Een klas heeft 2 tot 20 letters, cijfers of streepjes, bijvoorbeeld SD24.')
    .transform((cohort) => cohort.toUpperCase()),
});
