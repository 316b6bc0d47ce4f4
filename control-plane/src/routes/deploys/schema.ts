import { z } from 'zod';
import { BRANCH_MESSAGE, isSafeBranchName } from '@devplein/contract/validation/repositoryAddress';
import { projectIdParams } from '@devplein/contract/http/user-dockers';

export { projectIdParams };

const id = (message: string) => z.coerce.number({ error: message }).int(message).positive(message).max(2_147_483_647, message);

/** GET /api/user/dockers/{projectId}/deploys/{deployId}. */
export const deployParams = z.object({ projectId: id('Ongeldig projectnummer.'), deployId: id('Ongeldig deploynummer.') });

/** POST /api/user/dockers/{projectId}/deploys: {} (Bijwerken) or {rollbackOf} (terug naar deze versie). */
export const deployBody = z.object({ rollbackOf: id('Kies een eerdere deploy om naar terug te gaan.').optional() });

export const TOKEN_MAX = 500;
export const DEPLOY_SETTINGS_MESSAGES = {
  auth: 'Kies hoe git inlogt: geen, deploy key of token.',
  tokenRequired: 'Geef een token (een persoonlijk toegangstoken met alleen-lezen rechten).',
  tokenShape: `Een token bestaat uit letters, cijfers en tekens zonder spaties (maximaal ${TOKEN_MAX}).`,
  keyNeedsSsh: 'Een deploy key werkt alleen met een ssh-adres (zoals git@server:klas/project.git). Kies een token voor een https-adres.',
  tokenNeedsHttps: 'Een token werkt alleen met een https-adres. Kies een deploy key voor een ssh-adres.',
} as const;

/** PUT /api/user/dockers/{projectId}/deploy-settings {branch, auth, token?}. */
export const deploySettingsBody = z.object({
  branch: z
    .union([z.string(), z.null()], { error: BRANCH_MESSAGE })
    .transform((value) => (value === null || value.trim() === '' ? null : value.trim()))
    .refine((value) => value === null || isSafeBranchName(value), BRANCH_MESSAGE),
  auth: z.enum(['none', 'deploy-key', 'token'], { error: DEPLOY_SETTINGS_MESSAGES.auth }),
  token: z
    .string({ error: DEPLOY_SETTINGS_MESSAGES.tokenShape })
    .trim()
    .max(TOKEN_MAX, DEPLOY_SETTINGS_MESSAGES.tokenShape)
    .regex(/^[\x21-\x7e]*$/, DEPLOY_SETTINGS_MESSAGES.tokenShape)
    .optional(),
});
