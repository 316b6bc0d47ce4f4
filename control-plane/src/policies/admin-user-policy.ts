import type { CurrentUser } from '../auth/current-user.ts';
import { forbidden } from '../errors.ts';
import { isAdmin } from './roles.ts';

/**
 * The users admin is for every activated user with the admin flag (spec §2 admin routes: login
 * plus admin flag); the developer flag only decides whether the menu shows it (§6).
 */
export const mayManageUsers = (user: CurrentUser | null): boolean => isAdmin(user);

/** The authorize step of every users admin route: 403 for students and developers. */
export function authorizeUserManagement(user: CurrentUser): void {
  if (!mayManageUsers(user)) throw forbidden('Alleen beheerders kunnen gebruikers beheren.');
}

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
