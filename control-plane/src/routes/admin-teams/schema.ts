import { z } from 'zod';

const MAX_INT = 2_147_483_647;

/** A positive database id from a path segment or JSON (a string of digits counts). */
export const databaseId = (missing: string, invalid: string) =>
  z.preprocess(
    (value) => (value === '' || value === null ? undefined : typeof value === 'string' && /^\d{1,10}$/.test(value) ? Number(value) : value),
    z
      .number({ error: (issue) => (issue.input === undefined ? missing : invalid) })
      .int(invalid)
      .positive(invalid)
      .max(MAX_INT, invalid),
  );

export const teamIdParams = z.object({ id: databaseId('Ongeldig teamnummer.', 'Ongeldig teamnummer.') });

/** PUT /api/admin/teams/{id}: {user} whose membership toggles. */
export const teamMemberInput = z.object({ user: databaseId('Kies een gebruiker.', 'Ongeldige gebruiker.') });

/** POST /api/admin/teams: a new team. */
export const teamInput = z.object({
  name: z
    .string({ error: 'Vul een teamnaam in.' })
    .trim()
    .min(1, 'Vul een teamnaam in.')
    .max(60, 'De teamnaam mag hoogstens 60 tekens hebben.'),
});
