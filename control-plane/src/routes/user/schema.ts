import { z } from 'zod';

export const userIdParams = z.object({
  id: z.coerce.number({ error: 'Ongeldig gebruikersnummer.' }).int().positive('Ongeldig gebruikersnummer.').max(2_147_483_647),
});
