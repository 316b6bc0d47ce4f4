import type { CurrentUser } from '../auth/current-user.ts';
import { isAdmin } from './roles.ts';

/**
 * A project's container (state, actions, logs, pulls, WordPress reset, delete): its members and
 * admins. To anyone else the project does not exist (404).
 */
export const mayUseProjectContainer = (user: CurrentUser, memberIds: readonly number[]): boolean =>
  isAdmin(user) || memberIds.includes(user.id);

/** Every container of the host (incl. unmanaged ones), bulk actions, adoption, image options: admins only. */
export const mayManageContainers = (user: CurrentUser): boolean => isAdmin(user);

/**
 * Pulling an image: admins any reference; members only their project's own image option
 * (a student must not make the host download arbitrary images).
 */
export const mayPullImage = (user: CurrentUser, projectImage: string | null, requested: string): boolean =>
  isAdmin(user) || (projectImage !== null && projectImage === requested);
