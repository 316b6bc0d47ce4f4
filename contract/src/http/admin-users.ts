/**
 * The users admin (spec §2 Users, §4 user activation, §7), admins only. After each change the
 * user's access on the dev servers follows their flags; the answer's `access_not_done` says in
 * Dutch what a dev server did not do yet (retried by itself). Unknown id: 404.
 */
import { z } from 'zod';
import { adminUserJson } from '../users.ts';
import { endpoint, json } from './endpoint.ts';

const ADMINS_ONLY = 'Alleen beheerders kunnen gebruikers beheren.';
const MAX_INT = 2_147_483_647;

/** A user id from the path: digits only, within the id column's range. */
const userIdParams = z.object({
  id: z
    .string()
    .regex(/^\d{1,10}$/, 'Ongeldig gebruikersnummer.')
    .transform(Number)
    .refine((value) => value > 0 && value <= MAX_INT, 'Ongeldig gebruikersnummer.'),
});

/** The two account actions of spec §4: verify (activate, also lifts a disable) and disable. */
export const USER_ACTIONS = ['verify', 'disable'] as const;
export type UserAction = (typeof USER_ACTIONS)[number];

export const listAdminUsers = endpoint({
  method: 'GET',
  path: '/api/admin/users',
  access: 'admin',
  refusal: ADMINS_ONLY,
  summary: 'Every user with group, activation, disable, developer flag and what their access still waits for, by name (the page filters itself).',
  answer: json(z.array(adminUserJson)),
});

export const changeUserState = endpoint({
  method: 'PUT',
  path: '/api/admin/users/:id',
  access: 'admin',
  refusal: ADMINS_ONLY,
  summary: 'verify activates (and lifts a disable); disable signs the user out everywhere and blocks sign-in until verified again (disabling oneself: 403). Answers the user.',
  params: userIdParams,
  query: z.object({ action: z.enum(USER_ACTIONS, { error: 'Kies verify of disable.' }) }),
  answer: json(adminUserJson),
});

export const setDeveloperFlag = endpoint({
  method: 'PUT',
  path: '/api/admin/users/:id/developer',
  access: 'admin',
  refusal: ADMINS_ONLY,
  summary: "Sets or clears the developer flag (clearing signs the user out everywhere; clearing one's own: 403). Answers the user.",
  params: userIdParams,
  body: z.object({ developer: z.boolean({ error: 'Geef aan of dit een ontwikkelaar is (true of false).' }) }),
  answer: json(adminUserJson),
});

export const deleteAdminUser = endpoint({
  method: 'DELETE',
  path: '/api/admin/users/:id',
  access: 'admin',
  refusal: ADMINS_ONLY,
  summary:
    "Deletes the user through the dev servers (their databases, VPN configuration and sole projects go; shared projects lose the member): 204, or 200 {message} when part is left for the retry (an agent too old to end SSH sessions); 503 naming what is left when a dev server does not answer (the user stays, disabled). Deleting oneself: 403.",
  params: userIdParams,
  answer: json(z.strictObject({ message: z.string() }).optional()),
});

export const adminUserEndpoints = [listAdminUsers, changeUserState, setDeveloperFlag, deleteAdminUser];
