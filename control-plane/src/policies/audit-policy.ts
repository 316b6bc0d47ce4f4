import type { CurrentUser } from '../auth/current-user.ts';
import { forbidden } from '../errors.ts';
import { isAdmin } from './roles.ts';

/** The audit trail is for every activated user with the admin flag (teachers included). */
export const mayReadAudit = (user: CurrentUser | null): boolean => isAdmin(user);

/** The authorize step of the audit routes: 403 for students and developers. */
export function authorizeAuditReading(user: CurrentUser): void {
  if (!mayReadAudit(user)) throw forbidden('Alleen beheerders kunnen het logboek bekijken.');
}
