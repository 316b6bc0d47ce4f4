import { z } from 'zod';

/** Largest page of GET /api/admin/audit: enough for a screen, small enough to stay fast. */
export const MAX_PER_PAGE = 200;
export const DEFAULT_PER_PAGE = 50;

const MAX_INT = 2_147_483_647;

/** A positive whole number from a query string ('' counts as absent). */
const positiveInt = (message: string, max = MAX_INT) =>
  z.preprocess(
    (value) => (value === '' ? undefined : typeof value === 'string' && /^\d{1,10}$/.test(value) ? Number(value) : value),
    z.number({ error: message }).int(message).min(1, message).max(max, message),
  );

/**
 * Query of GET /api/admin/audit. `kind` is an action or a prefix of whole segments: 'user'
 * matches 'user.disable', 'user.disable' matches only itself.
 */
export const auditQuery = z.object({
  page: positiveInt('Ongeldig paginanummer.').default(1),
  per_page: positiveInt(`Kies 1 tot en met ${MAX_PER_PAGE} regels per pagina.`, MAX_PER_PAGE).default(DEFAULT_PER_PAGE),
  actor: positiveInt('Ongeldige gebruiker.').optional(),
  kind: z
    .string({ error: 'Ongeldige soort.' })
    .max(100, 'Ongeldige soort.')
    .regex(/^[a-z][a-z0-9-]*(\.[a-z0-9-]+)*$/, 'Ongeldige soort.')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  subject_type: z
    .string({ error: 'Ongeldig onderwerp.' })
    .max(100, 'Ongeldig onderwerp.')
    .regex(/^[a-z][a-z0-9_-]*$/, 'Ongeldig onderwerp.')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  subject_id: z
    .string({ error: 'Ongeldig onderwerpnummer.' })
    .min(1, 'Ongeldig onderwerpnummer.')
    .max(100, 'Ongeldig onderwerpnummer.')
    .optional()
    .or(z.literal('').transform(() => undefined)),
});

export type AuditQuery = z.infer<typeof auditQuery>;
