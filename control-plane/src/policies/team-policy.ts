import type { CurrentUser } from '../auth/current-user.ts';
import { forbidden } from '../errors.ts';
import { isAdmin } from './roles.ts';

/**
 * Teams (/api/admin/teams) are managed by every activated admin (spec §2 "Admin routes: login
 * plus admin flag"); the developer flag only decides whether the menu item shows.
 */
export const mayManageTeams = (user: CurrentUser | null): boolean => isAdmin(user);

/** The authorize step of every team route: 403 for students and developers. */
export function authorizeTeamManagement(user: CurrentUser): void {
  if (!mayManageTeams(user)) throw forbidden('Alleen beheerders kunnen teams beheren.');
}
