/**
 * Groups, the cohorts (spec §2 Groups, §7), admins only. A user has at most one group. Unknown
 * group → 404; an unknown user in a body → 422 on `user`.
 */
import { z } from 'zod';
import { groupJson, memberJson } from '../users.ts';
import { COHORT_PATTERN } from '../validation/cohort.ts';
import { endpoint, json } from './endpoint.ts';
import { databaseId } from './ids.ts';

const ADMINS_ONLY = 'Alleen beheerders kunnen groepen beheren.';
const groupId = () => databaseId('Ongeldig groepsnummer.', 'Ongeldig groepsnummer.');
const members = json(z.array(memberJson));

export const listGroups = endpoint({
  method: 'GET',
  path: '/api/admin/groups',
  access: 'admin',
  refusal: ADMINS_ONLY,
  summary:
    'Every group {id, cohort} by cohort; `search` is a case-insensitive "contains" of at most 50 characters (the levels page relies on that 422); `counts=true` adds member_count.',
  query: z.object({
    search: z.string().trim().max(50, 'Zoek op hoogstens 50 tekens.').optional(),
    counts: z.enum(['true', 'false', '1', '0'], { error: 'counts moet true of false zijn.' }).optional(),
  }),
  answer: json(z.array(groupJson)),
});

export const createGroup = endpoint({
  method: 'POST',
  path: '/api/admin/groups',
  access: 'admin',
  refusal: ADMINS_ONLY,
  summary: 'A new cohort, e.g. SD24 (2..20 letters, digits or hyphens), stored in capitals (the SD rule of §6 is case-sensitive) and unique: 201 with it. Audited group.create.',
  body: z.object({
    cohort: z
      .string({ error: 'Vul een klas in, bijvoorbeeld SD24.' })
      .trim()
      .min(1, 'Vul een klas in, bijvoorbeeld SD24.')
      .regex(COHORT_PATTERN, 'Een klas heeft 2 tot 20 letters, cijfers of streepjes, bijvoorbeeld SD24.')
      .transform((cohort) => cohort.toUpperCase()),
  }),
  answer: json(groupJson),
});

export const groupMembers = endpoint({
  method: 'GET',
  path: '/api/admin/groups/:id',
  access: 'admin',
  refusal: ADMINS_ONLY,
  summary: "The group's members by name.",
  params: z.object({ id: groupId() }),
  answer: members,
});

export const addGroupMember = endpoint({
  method: 'PUT',
  path: '/api/admin/groups/:id',
  access: 'admin',
  refusal: ADMINS_ONLY,
  summary: 'Puts {user} in this group (out of their old one); answers the members. Audited group.add-member with the group before and after.',
  params: z.object({ id: groupId() }),
  body: z.object({ user: databaseId('Kies een gebruiker.', 'Ongeldige gebruiker.') }),
  answer: members,
});

export const removeGroupMember = endpoint({
  method: 'DELETE',
  path: '/api/admin/groups/:id/users/:userId',
  access: 'admin',
  refusal: ADMINS_ONLY,
  summary: 'Takes the user out of this group (their group becomes none); answers the members; 404 when the user is not in it. Audited group.remove-member.',
  params: z.object({ id: groupId(), userId: databaseId('Ongeldige gebruiker.', 'Ongeldige gebruiker.') }),
  answer: members,
});

export const groupEndpoints = [listGroups, createGroup, groupMembers, addGroupMember, removeGroupMember];
