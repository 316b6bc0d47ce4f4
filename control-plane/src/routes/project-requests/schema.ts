import { z } from 'zod';

/** :id of /api/user/project/{id} and /api/admin/projects/{id}. */
export const projectIdParams = z.object({
  id: z.coerce.number({ error: 'Ongeldig projectnummer.' }).int('Ongeldig projectnummer.').positive('Ongeldig projectnummer.').max(2_147_483_647, 'Ongeldig projectnummer.'),
});
