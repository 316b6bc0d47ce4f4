import { z } from 'zod';
import {
  INVALID_SSH_KEY_MESSAGE,
  SSH_KEY_MAX_LENGTH,
  SSH_KEY_NAME_MAX_LENGTH,
} from '@devplein/contract/validation/sshKeyFormat';
import { SSH_KEY_NAME_REQUIRED } from '@devplein/contract/messages';

/** POST /api/user/ssh_keys {name, sshKey}; the key's real parse happens in the route. */
export const newSshKeyBody = z.object({
  name: z
    .string({ error: SSH_KEY_NAME_REQUIRED })
    .trim()
    .min(1, SSH_KEY_NAME_REQUIRED)
    .max(SSH_KEY_NAME_MAX_LENGTH, `De naam mag maximaal ${SSH_KEY_NAME_MAX_LENGTH} tekens lang zijn.`),
  sshKey: z
    .string({ error: INVALID_SSH_KEY_MESSAGE })
    .max(SSH_KEY_MAX_LENGTH, INVALID_SSH_KEY_MESSAGE),
});

export const sshKeyIdParams = z.object({
  id: z.coerce.number({ error: 'Ongeldig keynummer.' }).int().positive('Ongeldig keynummer.').max(2_147_483_647),
});
