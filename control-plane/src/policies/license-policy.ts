import type { CurrentUser } from '../auth/current-user.ts';
import { forbidden } from '../errors.ts';
import { isAdmin, isVerified } from './roles.ts';

/** Any activated account, student or teacher, may request licences for itself. */
export const mayRequestLicenses = (user: CurrentUser | null): boolean => isVerified(user);

/** Approving licences is for every activated user with the admin flag (spec §2, login plus admin flag). */
export const mayApproveLicenses = (user: CurrentUser | null): boolean => isAdmin(user);

/** The authorize step of the admin licence routes: 403 for students and developers. */
export function authorizeLicenseApproval(user: CurrentUser): void {
  if (!mayApproveLicenses(user)) throw forbidden('Alleen beheerders kunnen licenties goedkeuren.');
}

/** A licence is its owner's: to anyone else it does not exist (404). */
export const ownsLicense = (user: CurrentUser, license: { user_id: number }): boolean => license.user_id === user.id;

/** Once approved, a request is the admin's decision: the owner can no longer withdraw it. */
export const mayWithdrawLicense = (license: { approved_at: Date | string | null }): boolean => license.approved_at === null;

/** Requests waiting for approval per user: enough for real needs, a bound against a runaway form. */
export const MAX_PENDING_LICENSES_PER_USER = 10;
