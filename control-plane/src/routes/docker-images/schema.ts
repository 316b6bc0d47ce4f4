import { z } from 'zod';
import { IMAGE_REFERENCE, IMAGE_REFERENCE_MESSAGE } from '../user-dockers/schema.ts';

/** POST /api/admin/dockers/images {name, image, ssh, wordpress}. */
export const imageOptionBody = z.object({
  name: z.string({ error: 'Geef een naam.' }).trim().min(2, 'De naam moet minstens 2 tekens hebben.').max(100, 'De naam mag hoogstens 100 tekens hebben.'),
  image: z.string({ error: IMAGE_REFERENCE_MESSAGE }).trim().max(255, IMAGE_REFERENCE_MESSAGE).regex(IMAGE_REFERENCE, IMAGE_REFERENCE_MESSAGE),
  ssh: z.boolean({ error: 'ssh moet waar of onwaar zijn.' }).default(false),
  wordpress: z.boolean({ error: 'wordpress moet waar of onwaar zijn.' }).default(false),
});

export const imageOptionParams = z.object({
  id: z.coerce.number({ error: 'Ongeldig nummer.' }).int('Ongeldig nummer.').positive('Ongeldig nummer.').max(2_147_483_647, 'Ongeldig nummer.'),
});
