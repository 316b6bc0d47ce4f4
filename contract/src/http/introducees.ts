/** Introducees, 'meelopers' (spec §2): /api/admin/introduction (the URL as the web app calls it), admins only. */
import { z } from 'zod';
import { introduceeJson } from '../access.ts';
import { introduceeNameProblems } from '../validation/licensesAndIntroducees.ts';
import { endpoint, json } from './endpoint.ts';
import { recordId } from './ids.ts';

const ADMINS_ONLY = 'Alleen beheerders kunnen meelopers beheren.';
const list = json(z.array(introduceeJson));

/** POST's body {name}: the name becomes a host name and a git user. */
export const newIntroduceeBody = z.object({
  name: z
    .string({ error: 'Vul een naam in.' })
    .trim()
    .superRefine((name, ctx) => {
      for (const message of introduceeNameProblems(name)) ctx.addIssue({ code: 'custom', message });
    }),
});

export const listIntroducees = endpoint({
  method: 'GET',
  path: '/api/admin/introduction',
  access: 'admin',
  refusal: ADMINS_ONLY,
  summary: 'Every introducee with the site domain, git user and opened git password.',
  answer: list,
});

export const createIntroducee = endpoint({
  method: 'POST',
  path: '/api/admin/introduction',
  access: 'admin',
  refusal: ADMINS_ONLY,
  summary: 'Makes an introducee (a site name and a git account with a new password); answers the updated list.',
  body: newIntroduceeBody,
  answer: list,
});

export const deleteIntroducee = endpoint({
  method: 'DELETE',
  path: '/api/admin/introduction/:id',
  access: 'admin',
  refusal: ADMINS_ONLY,
  summary: 'Removes an introducee and its git account; answers the updated list.',
  params: z.object({ id: recordId('Ongeldig nummer.') }),
  answer: list,
});

export const introduceeEndpoints = [listIntroducees, createIntroducee, deleteIntroducee];
