import type { CurrentUser } from '../auth/current-user.ts';
import { isAdmin, isVerified } from './roles.ts';

/** Any activated user may view another user's profile by id (§6). */
export const mayViewProfile = (viewer: CurrentUser | null): boolean => isVerified(viewer);

/** Only the owner (or an admin) sees fields meant for the owner, such as the activation date. */
export const mayViewPrivateFields = (viewer: CurrentUser, subjectId: number): boolean =>
  viewer.id === subjectId || isAdmin(viewer);
