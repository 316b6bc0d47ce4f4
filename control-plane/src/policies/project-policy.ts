import type { CurrentUser } from '../auth/current-user.ts';
import { isAdmin } from './roles.ts';

/** Whether the user is one of the project's members (ids of project_user). */
export const isProjectMember = (user: CurrentUser, memberIds: readonly number[]): boolean => memberIds.includes(user.id);

/**
 * Edit or delete a project request: its members and admins. To anyone else the project does
 * not exist (404).
 */
export const mayChangeProject = (user: CurrentUser, memberIds: readonly number[]): boolean =>
  isAdmin(user) || isProjectMember(user, memberIds);

/** The project quota (beyond the spec) holds for students; admins make projects for others. */
export const hasProjectQuota = (user: CurrentUser): boolean => !isAdmin(user);

/**
 * An approved project edited by a student goes back to awaiting approval (a teacher checks the
 * change); an admin's edit keeps the decision.
 */
export const editKeepsApproval = (user: CurrentUser): boolean => isAdmin(user);
