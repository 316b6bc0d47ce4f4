/**
 * Spreadsheets for teachers (issue 22), admins only, each download audited (who took which
 * personal data, when). CSV as Excel in a Dutch locale opens it with a double click.
 */
import { z } from 'zod';
import { MISSING_FIELDS_MESSAGE } from '../messages.ts';
import { endpoint, file } from './endpoint.ts';
import { databaseId } from './ids.ts';

export const exportUsers = endpoint({
  method: 'GET',
  path: '/api/admin/exports/users.csv',
  access: 'admin',
  refusal: 'Alleen beheerders kunnen gebruikers beheren.',
  summary: 'Every user as the users admin lists them (name, e-mail, cohort, activated, disabled, developer); audited export.users.',
  answer: file('text/csv'),
});

export const exportGroupLevels = endpoint({
  method: 'GET',
  path: '/api/admin/exports/levels/:groupId.csv',
  access: 'admin',
  refusal: 'Alleen beheerders kunnen levels beheren.',
  summary: "One group's levels per student: a row per student, a column per level of every category, the status as the table shows it (empty: no level record); audited export.levels. Unknown group: 404.",
  params: z.object({ groupId: databaseId(MISSING_FIELDS_MESSAGE, 'Ongeldig groepsnummer.') }),
  answer: file('text/csv'),
});

export const exportEndpoints = [exportUsers, exportGroupLevels];
