import type { CurrentUser } from '../queries/current-user.ts';
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

/** What a project runs and where: a change to any of these is one a teacher has to approve. */
export interface HostedShape {
  name: string;
  domain: string;
  docker_image_id: number | null;
  repro: string | null;
}

/**
 * An approved project a student edits goes back to awaiting approval (a teacher checks the
 * change, and until then it cannot run) when the edit changes what runs or where: its name,
 * domain, image or git repository. Members, description, visibility and end date keep the
 * approval, so a student can fix a typo or change the team without their site going down. An
 * admin's edit always keeps the decision.
 */
export const editNeedsApproval = (user: CurrentUser, before: HostedShape, after: HostedShape): boolean =>
  !isAdmin(user) &&
  (before.name !== after.name || before.domain !== after.domain || Number(before.docker_image_id) !== Number(after.docker_image_id) || (before.repro ?? null) !== (after.repro ?? null));
