import type { CurrentUser } from '../queries/current-user.ts';
import { isAdmin } from './roles.ts';

/**
 * A project's container (state, actions, logs, pulls, WordPress reset, delete): its members and
 * admins. To anyone else the project does not exist (404).
 */
export const mayUseProjectContainer = (user: CurrentUser, memberIds: readonly number[]): boolean =>
  isAdmin(user) || memberIds.includes(user.id);

/**
 * Pulling an image: admins any reference; members only their project's own image option
 * (a student must not make the host download arbitrary images).
 */
export const mayPullImage = (user: CurrentUser, projectImage: string | null, requested: string): boolean =>
  isAdmin(user) || (projectImage !== null && projectImage === requested);

/** Actions after which a container runs (again). */
const RUNNING_ACTIONS: ReadonlySet<string> = new Set(['start', 'restart', 'unpause']);

/**
 * Only an approved project's container may run: start, restart and unpause need the approval;
 * stopping, pausing and reading logs stay possible (issue 15: access ends when a teacher
 * rejects a project or a student's edit sends it back for approval).
 */
export const mayRunProjectContainer = (project: { validated: boolean | null }, action: string): boolean =>
  project.validated === true || !RUNNING_ACTIONS.has(action);

/** Why a container of a project that is not approved may not start, in the words the student sees. */
export const notRunnableMessage = (validated: boolean | null): string =>
  validated === false
    ? 'Dit project is afgekeurd: de container kan niet starten. Vraag een docent het project opnieuw goed te keuren.'
    : 'Dit project wacht op goedkeuring door een docent: de container kan pas starten als het is goedgekeurd.';
