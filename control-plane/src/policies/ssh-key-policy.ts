import type { CurrentUser } from '../queries/current-user.ts';

// Spec §6: SSH keys are for developers only: the endpoints' declared access (contract/src/http/ssh-keys.ts).

/** Only the owner may remove a key; to anyone else it does not exist (404). */
export const ownsSshKey = (user: CurrentUser, key: { user_id: number }): boolean => key.user_id === user.id;

/** Keys per user: plenty for a laptop, a desktop and a few servers, and a bound on the list. */
export const MAX_SSH_KEYS_PER_USER = 20;
