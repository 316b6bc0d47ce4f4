/**
 * The audit trail (admins only), read-only on purpose: no endpoint changes or deletes an entry,
 * and migration 0006 makes the table append-only in the database as well.
 */
import { z } from 'zod';
import { auditEntryJson } from '../users.ts';
import { endpoint, json } from './endpoint.ts';

const ADMINS_ONLY = 'Alleen beheerders kunnen het logboek bekijken.';

/** Largest page of GET /api/admin/audit: enough for a screen, small enough to stay fast. */
export const AUDIT_MAX_PER_PAGE = 200;
export const AUDIT_DEFAULT_PER_PAGE = 50;

const MAX_INT = 2_147_483_647;

/** A positive whole number from a query string ('' counts as absent). */
const positiveInt = (message: string, max = MAX_INT) =>
  z.preprocess(
    (value) => (value === '' ? undefined : typeof value === 'string' && /^\d{1,10}$/.test(value) ? Number(value) : value),
    z.number({ error: message }).int(message).min(1, message).max(max, message),
  );

/**
 * `kind` is an action or a prefix of whole segments: 'user' matches 'user.disable',
 * 'user.disable' matches only itself.
 */
export const auditQuery = z.object({
  page: positiveInt('Ongeldig paginanummer.').default(1),
  per_page: positiveInt(`Kies 1 tot en met ${AUDIT_MAX_PER_PAGE} regels per pagina.`, AUDIT_MAX_PER_PAGE).default(AUDIT_DEFAULT_PER_PAGE),
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

export const auditPageJson = z.strictObject({
  data: z.array(auditEntryJson),
  page: z.number().int(),
  per_page: z.number().int(),
  total: z.number().int(),
});
export type AuditPageJson = z.infer<typeof auditPageJson>;

export const auditFacetsJson = z.strictObject({
  /** People who ever wrote an entry. */
  actors: z.array(z.strictObject({ id: z.number().int(), name: z.string() })),
  /** The action prefixes in the log ('user', 'project', …). */
  kinds: z.array(z.string()),
});
export type AuditFacetsJson = z.infer<typeof auditFacetsJson>;

export const readAudit = endpoint({
  method: 'GET',
  path: '/api/admin/audit',
  access: 'admin',
  refusal: ADMINS_ONLY,
  summary: 'One page of the audit trail, newest first (created_at, then id), filtered by actor, kind (an action or a prefix of whole segments) and subject.',
  query: auditQuery,
  answer: json(auditPageJson),
});

export const auditFacets = endpoint({
  method: 'GET',
  path: '/api/admin/audit/facets',
  access: 'admin',
  refusal: ADMINS_ONLY,
  summary: "The audit trail's filter choices: the people who ever wrote an entry and the action prefixes in the log.",
  answer: json(auditFacetsJson),
});

export const adminAuditEndpoints = [readAudit, auditFacets];
