import { z } from 'zod';
import {
  LICENSE_DESCRIPTION_MAX,
  LICENSE_DESCRIPTION_MIN,
  LICENSE_NAME_MAX,
  LICENSE_NAME_MIN,
} from '@devplein/contract/validation/licensesAndIntroducees';

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

export const licenseIdParams = z.object({
  id: z.coerce.number({ error: 'Ongeldig licentienummer.' }).int('Ongeldig licentienummer.').positive('Ongeldig licentienummer.').max(2_147_483_647, 'Ongeldig licentienummer.'),
});
