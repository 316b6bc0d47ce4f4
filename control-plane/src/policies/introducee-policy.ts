import type { CurrentUser } from '../auth/current-user.ts';
import { forbidden } from '../errors.ts';
import { isAdmin } from './roles.ts';

/**
 * Introducees ('meelopers') and their git passwords are for every activated user with the admin
 * flag (spec §2: admin route; the 'Developers' tag and the menu rule only decide what is shown).
 */
export const mayManageIntroducees = (user: CurrentUser | null): boolean => isAdmin(user);

/** The authorize step of every introducee route: 403 for students and developers. */
export function authorizeIntroduceeManagement(user: CurrentUser): void {
  if (!mayManageIntroducees(user)) throw forbidden('Alleen beheerders kunnen meelopers beheren.');
}
