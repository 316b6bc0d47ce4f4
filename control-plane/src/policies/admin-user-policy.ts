import type { CurrentUser } from '../queries/current-user.ts';
import { forbidden } from '../errors.ts';

/**
 * An admin cannot lock themselves out: disabling or deleting one's own account, or clearing
 * one's own developer flag, is refused, so there is always someone left who can undo a mistake.
 */
export function authorizeActionOnAccount(actor: CurrentUser, targetId: number, action: 'disable' | 'delete' | 'developer-off'): void {
  if (actor.id !== targetId) return;
  throw forbidden(selfRefusals[action]);
}

const selfRefusals = {
  disable: 'Je kunt je eigen account niet uitschakelen.',
  delete: 'Je kunt je eigen account niet verwijderen.',
  // The users admin is in the menu of admins who are developers (spec §6): clearing one's own flag hides it.
  'developer-off': 'Je kunt je eigen ontwikkelaarsrechten niet intrekken.',
} as const;
