import { z } from 'zod';
import { introduceeNameProblems } from '@devplein/contract/validation/licensesAndIntroducees';

/** POST /api/admin/introduction {name}: the name becomes a host name and a git user. */
export const newIntroduceeBody = z.object({
  name: z
    .string({ error: 'Vul een naam in.' })
    .trim()
    .superRefine((name, ctx) => {
      for (const message of introduceeNameProblems(name)) ctx.addIssue({ code: 'custom', message });
    }),
});

export const introduceeIdParams = z.object({
  id: z.coerce.number({ error: 'Ongeldig nummer.' }).int('Ongeldig nummer.').positive('Ongeldig nummer.').max(2_147_483_647, 'Ongeldig nummer.'),
});
