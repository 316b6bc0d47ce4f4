import { z } from 'zod';
import { DATABASE_NAME_MESSAGES } from '@devplein/contract/validation/databaseName';

/**
 * POST /api/user/databases {db}: the student's 1–3 letters, lowercased (spec §5 "forced
 * lowercase"). The name rule itself (databaseNameProblem) runs in the command, against the
 * user's existing names; nothing is stripped here, so the server never creates a name the
 * student did not send.
 */
export const newDatabaseBody = z.object({
  db: z
    .string({ error: DATABASE_NAME_MESSAGES.empty })
    .max(100, DATABASE_NAME_MESSAGES.tooLong)
    .transform((value) => value.toLowerCase()),
});

export const databaseIdParams = z.object({
  id: z.coerce.number({ error: 'Ongeldig databasenummer.' }).int('Ongeldig databasenummer.').positive('Ongeldig databasenummer.').max(2_147_483_647, 'Ongeldig databasenummer.'),
});
