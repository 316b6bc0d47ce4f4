import { z } from 'zod';

/* Input of the users admin (spec §7: PUT /api/admin/users/{id}?action=verify|disable, DELETE /api/admin/users/{id}). */

const MAX_INT = 2_147_483_647;

/** A user id from the path: digits only, within the id column's range. */
export const userIdParams = z.object({
  id: z
    .string()
    .regex(/^\d{1,10}$/, 'Ongeldig gebruikersnummer.')
    .transform(Number)
    .refine((value) => value > 0 && value <= MAX_INT, 'Ongeldig gebruikersnummer.'),
});

/** The two account actions of spec §4: verify (activate, also lifts a disable) and disable. */
export const USER_ACTIONS = ['verify', 'disable'] as const;
export type UserAction = (typeof USER_ACTIONS)[number];

export const userActionQuery = z.object({
  action: z.enum(USER_ACTIONS, { error: 'Kies verify of disable.' }),
});

/** PUT /api/admin/users/{id}/developer: set (true) or clear (false) the developer flag. */
export const developerBody = z.object({
  developer: z.boolean({ error: 'Geef aan of dit een ontwikkelaar is (true of false).' }),
});
