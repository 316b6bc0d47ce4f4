/** A developer's SSH keys (spec §3, §7): /api/user/ssh_keys. */
import { z } from 'zod';
import { sshKeyJson } from '../access.ts';
import { SSH_KEY_NAME_REQUIRED } from '../messages.ts';
import { INVALID_SSH_KEY_MESSAGE, SSH_KEY_MAX_LENGTH, SSH_KEY_NAME_MAX_LENGTH } from '../validation/sshKeyFormat.ts';
import { endpoint, json } from './endpoint.ts';
import { recordId } from './ids.ts';

const REFUSAL = 'SSH keys zijn alleen voor ontwikkelaars.';
const keyList = json(z.array(sshKeyJson));

/** POST's body: the key's real parse (type, bits, fingerprint) happens in the route. */
export const newSshKeyBody = z.object({
  name: z
    .string({ error: SSH_KEY_NAME_REQUIRED })
    .trim()
    .min(1, SSH_KEY_NAME_REQUIRED)
    .max(SSH_KEY_NAME_MAX_LENGTH, `De naam mag maximaal ${SSH_KEY_NAME_MAX_LENGTH} tekens lang zijn.`),
  sshKey: z.string({ error: INVALID_SSH_KEY_MESSAGE }).max(SSH_KEY_MAX_LENGTH, INVALID_SSH_KEY_MESSAGE),
});

export const listSshKeys = endpoint({
  method: 'GET',
  path: '/api/user/ssh_keys',
  access: 'developer',
  refusal: REFUSAL,
  summary: "The signed-in developer's SSH keys.",
  answer: keyList,
});

export const addSshKey = endpoint({
  method: 'POST',
  path: '/api/user/ssh_keys',
  access: 'developer',
  refusal: REFUSAL,
  summary: 'Stores a public key (and puts it in the containers of the projects the developer is a member of); answers the updated list.',
  body: newSshKeyBody,
  answer: keyList,
});

export const deleteSshKey = endpoint({
  method: 'DELETE',
  path: '/api/user/ssh_keys/:id',
  access: 'developer',
  refusal: REFUSAL,
  summary: 'Removes one of the developer’s own keys; answers the updated list.',
  params: z.object({ id: recordId('Ongeldig keynummer.') }),
  answer: keyList,
});

export const sshKeyEndpoints = [listSshKeys, addSshKey, deleteSshKey];
