/** A WordPress project's administrator password (spec §7): POST /api/wordpress/passwordreset/{project}, for its members and admins. */
import { z } from 'zod';
import { endpoint, json, notAllowed } from './endpoint.ts';

const MAX_ID = 2_147_483_647;
const MESSAGE = 'Geef een projectnummer of projectnaam.';

/**
 * :project: a project id or a project name (names are letters and hyphens, so digits only is an
 * id, and an id beyond PostgreSQL's integer is refused).
 */
const projectRef = z
  .string()
  .regex(/^(?:[1-9][0-9]{0,9}|[a-zA-Z0-9][a-zA-Z0-9_.-]{0,127})$/, MESSAGE)
  .refine((value) => !/^[0-9]+$/.test(value) || (/^[1-9]/.test(value) && Number(value) <= MAX_ID), MESSAGE)
  .transform((value): { id: number; name?: undefined } | { id?: undefined; name: string } => (/^[0-9]+$/.test(value) ? { id: Number(value) } : { name: value }));

export const resetWordpressPassword = endpoint({
  method: 'POST',
  path: '/api/wordpress/passwordreset/:project',
  access: 'active',
  summary:
    "A new password for the WordPress administrator of the project's container, shown once (neither the agent nor the control plane keeps a copy). Members and admins; others 404. The spec's GET answers 405 (docs/spec-deviations.md).",
  params: z.object({ project: projectRef }),
  answer: json(z.strictObject({ username: z.string(), password: z.string() })),
});

/** The spec's GET changed state (a password nobody asked for): 405 for everyone, the reset is a POST. */
export const resetWordpressPasswordByGet = endpoint({
  method: 'GET',
  path: '/api/wordpress/passwordreset/:project',
  access: 'public',
  summary: 'The spec’s GET changed state: 405 for everyone (Allow: POST); the reset is the POST (docs/spec-deviations.md).',
  // Any value: the answer is the same 405, never a 422.
  params: z.object({ project: z.string() }),
  answer: notAllowed('POST'),
});

export const wordpressEndpoints = [resetWordpressPasswordByGet, resetWordpressPassword];
