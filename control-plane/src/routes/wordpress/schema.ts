import { z } from 'zod';

const MAX_ID = 2_147_483_647;
const MESSAGE = 'Geef een projectnummer of projectnaam.';

/**
 * :project of /api/wordpress/passwordreset/{project}: a project id or a project name (names are
 * letters and hyphens, so digits only is an id, and an id beyond PostgreSQL's integer is refused).
 */
export const wordpressProjectParams = z.object({
  project: z
    .string()
    .regex(/^(?:[1-9][0-9]{0,9}|[a-zA-Z0-9][a-zA-Z0-9_.-]{0,127})$/, MESSAGE)
    .refine((value) => !/^[0-9]+$/.test(value) || (/^[1-9]/.test(value) && Number(value) <= MAX_ID), MESSAGE)
    .transform((value) => (/^[0-9]+$/.test(value) ? { id: Number(value) } : { name: value })),
});
