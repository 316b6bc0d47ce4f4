/**
 * Licences (spec §2 Licences, §7): every activated user requests, lists and withdraws their own
 * (/api/user/licenses, from the profile); admins see every request and tick approval on and off
 * (/api/admin/licenses).
 */
import { z } from 'zod';
import { adminLicenseJson, ownLicenseJson } from '../access.ts';
import { LICENSE_DESCRIPTION_MAX, LICENSE_DESCRIPTION_MIN, LICENSE_NAME_MAX, LICENSE_NAME_MIN } from '../validation/licensesAndIntroducees.ts';
import { endpoint, json } from './endpoint.ts';
import { recordId } from './ids.ts';

const APPROVERS_ONLY = 'Alleen beheerders kunnen licenties goedkeuren.';
const licenseIdParams = z.object({ id: recordId('Ongeldig licentienummer.') });
const ownList = json(z.array(ownLicenseJson));

/** POST /api/user/licenses {description, license}: why, and which licence. */
export const newLicenseBody = z.object({
  description: z
    .string({ error: 'Vul een omschrijving in.' })
    .trim()
    .min(LICENSE_DESCRIPTION_MIN, `De omschrijving moet minimaal ${LICENSE_DESCRIPTION_MIN} tekens lang zijn.`)
    .max(LICENSE_DESCRIPTION_MAX, `De omschrijving mag maximaal ${LICENSE_DESCRIPTION_MAX} tekens lang zijn.`),
  license: z
    .string({ error: 'Vul in welke licentie je nodig hebt.' })
    .trim()
    .min(LICENSE_NAME_MIN, `De licentie moet minimaal ${LICENSE_NAME_MIN} tekens lang zijn.`)
    .max(LICENSE_NAME_MAX, `De licentie mag maximaal ${LICENSE_NAME_MAX} tekens lang zijn.`),
});

export const listAllLicenses = endpoint({
  method: 'GET',
  path: '/api/admin/licenses',
  access: 'admin',
  refusal: APPROVERS_ONLY,
  summary: 'Every licence request, newest first, with its holder.',
  answer: json(z.array(adminLicenseJson)),
});

export const toggleLicenseApproval = endpoint({
  method: 'PUT',
  path: '/api/admin/licenses/:id',
  access: 'admin',
  refusal: APPROVERS_ONLY,
  summary: "The admin's tick: the first PUT approves, the next one revokes (audited); answers the licence as it is now.",
  params: licenseIdParams,
  answer: json(adminLicenseJson),
});

export const listOwnLicenses = endpoint({
  method: 'GET',
  path: '/api/user/licenses',
  access: 'active',
  summary: "The signed-in user's own licence requests, newest first.",
  answer: ownList,
});

export const requestLicense = endpoint({
  method: 'POST',
  path: '/api/user/licenses',
  access: 'active',
  summary: 'Requests a licence (at most ten waiting per user); answers the updated own list.',
  body: newLicenseBody,
  answer: ownList,
});

export const withdrawLicense = endpoint({
  method: 'DELETE',
  path: '/api/user/licenses/:id',
  access: 'active',
  summary: 'Withdraws one of the own requests while it waits (422 once approved); answers the updated own list.',
  params: licenseIdParams,
  answer: ownList,
});

export const licenseEndpoints = [listAllLicenses, toggleLicenseApproval, listOwnLicenses, requestLicense, withdrawLicense];
