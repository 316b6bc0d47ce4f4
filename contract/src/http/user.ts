/** Who is signed in, and someone's profile (spec §2 Profile). */
import { z } from 'zod';
import { currentUserJson, profileJson } from '../users.ts';
import { endpoint, json } from './endpoint.ts';
import { recordId } from './ids.ts';

export const currentUser = endpoint({
  method: 'GET',
  path: '/api/user',
  // The one API route a not-activated user may call: the web app needs it to show /not_verified.
  access: 'signed-in',
  summary: "The signed-in user with flags, teams, group and finished levels per category; `email_verified_at` null means not activated.",
  answer: json(currentUserJson),
});

export const userProfile = endpoint({
  method: 'GET',
  path: '/api/user/:id',
  access: 'active',
  summary:
    "Someone's profile (no activation date). An account that is not (or no longer) active is a 404 to other students; admins and the user see it. The own-resource paths under /api/user/ (ssh_keys, dockers, databases, …) are other endpoints, never this one's 422.",
  params: z.object({ id: recordId('Ongeldig gebruikersnummer.') }),
  answer: json(profileJson),
});

export const userEndpoints = [currentUser, userProfile];
