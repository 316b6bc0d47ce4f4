import type { CurrentUser } from '../auth/current-user.ts';
import { forbidden } from '../errors.ts';
import { isAdmin } from './roles.ts';

/**
 * The teachers' level tools (categories, content with courses and files, levels per student,
 * the group list for the selector) are for every activated user with the admin flag (spec §2
 * "Admin routes: login plus admin flag"); the developer flag only decides the menu items.
 */
export const mayManageLevels = (user: CurrentUser | null): boolean => isAdmin(user);

/** The authorize step of every admin level route: 403 for students and developers. */
export function authorizeLevelManagement(user: CurrentUser): void {
  if (!mayManageLevels(user)) throw forbidden('Alleen beheerders kunnen levels beheren.');
}
