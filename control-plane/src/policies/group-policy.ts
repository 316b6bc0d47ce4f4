import type { CurrentUser } from '../auth/current-user.ts';
import { forbidden } from '../errors.ts';
import { isAdmin } from './roles.ts';

/**
 * Groups (cohorts, /api/admin/groups) are managed by every activated admin; the route's
 * 'Developers' tag in the spec is recorded, not enforced ("not shown").
 */
export const mayManageGroups = (user: CurrentUser | null): boolean => isAdmin(user);

/** The authorize step of every group route: 403 for students and developers. */
export function authorizeGroupManagement(user: CurrentUser): void {
  if (!mayManageGroups(user)) throw forbidden('Alleen beheerders kunnen groepen beheren.');
}
