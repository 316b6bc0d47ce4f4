/** Teams (spec §2 Teams, §7), admins only. Unknown team → 404. */
import { z } from 'zod';
import { memberJson, teamSummaryJson } from '../users.ts';
import { endpoint, json } from './endpoint.ts';
import { databaseId } from './ids.ts';

const ADMINS_ONLY = 'Alleen beheerders kunnen teams beheren.';
const teamIdParams = z.object({ id: databaseId('Ongeldig teamnummer.', 'Ongeldig teamnummer.') });
const members = json(z.array(memberJson));

export const listTeams = endpoint({
  method: 'GET',
  path: '/api/admin/teams',
  access: 'admin',
  refusal: ADMINS_ONLY,
  summary: 'Every team with its member count, by id.',
  answer: json(z.array(teamSummaryJson)),
});

export const createTeam = endpoint({
  method: 'POST',
  path: '/api/admin/teams',
  access: 'admin',
  refusal: ADMINS_ONLY,
  summary: 'A new team (1..60 characters, unique case-insensitively): 201 with it. Audited team.create.',
  body: z.object({
    name: z.string({ error: 'Vul een teamnaam in.' }).trim().min(1, 'Vul een teamnaam in.').max(60, 'De teamnaam mag hoogstens 60 tekens hebben.'),
  }),
  answer: json(teamSummaryJson),
});

export const teamMembers = endpoint({
  method: 'GET',
  path: '/api/admin/teams/:id',
  access: 'admin',
  refusal: ADMINS_ONLY,
  summary: "The team's members by name.",
  params: teamIdParams,
  answer: members,
});

export const toggleTeamMember = endpoint({
  method: 'PUT',
  path: '/api/admin/teams/:id',
  access: 'admin',
  refusal: ADMINS_ONLY,
  summary: 'Toggles the membership of {user} (added if absent, removed if present); answers the members. Audited team.add-member / team.remove-member; an unknown user is a 422 on `user`.',
  params: teamIdParams,
  body: z.object({ user: databaseId('Kies een gebruiker.', 'Ongeldige gebruiker.') }),
  answer: members,
});

export const teamEndpoints = [listTeams, createTeam, teamMembers, toggleTeamMember];
