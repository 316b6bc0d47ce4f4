import { z } from 'zod';

/** :project of /api/wordpress/passwordreset/{project}: a project id or a project name. */
export const wordpressProjectParams = z.object({
  project: z
    .string()
    .regex(/^(?:[1-9][0-9]{0,9}|[a-zA-Z0-9][a-zA-Z0-9_.-]{0,127})$/, 'Geef een projectnummer of projectnaam.')
    .transform((value) => (/^[0-9]+$/.test(value) ? { id: Number(value) } : { name: value })),
});
