/*
 * The role rules of spec §6 for the web's menus and pages: the shared predicates of
 * @devplein/contract/roles (the control plane's policies use the same ones), plus the few that
 * only a screen asks. The UI only hides what the server forbids; the server's policies decide.
 */
import {
  canSeeLevels,
  firstTeamId,
  isAdmin,
  isAdminDeveloper,
  isDeveloper,
  isFirstTeamOneMember,
  isSignedIn,
  isVerified,
  type RoleSubject,
} from '@devplein/contract/roles';

export { canSeeLevels, firstTeamId, isAdmin, isAdminDeveloper, isDeveloper, isSignedIn, isVerified };

type MaybeUser = RoleSubject | null | undefined;

/** Menu items Databases and VPN are for (activated) developers. */
export const canSeeDeveloperTools = (user: MaybeUser): boolean => isDeveloper(user);

/**
 * Admin menu items Gebruikers, Teams, Meelopers, Levels per student, Levelinhoud and
 * Levelcategorieën are for admins who are also developers.
 */
export const showAdminDeveloperItems = (user: MaybeUser): boolean => isAdminDeveloper(user);

/** The new-project-request counter shows on one's own profile when one's first team is team 1. */
export function canSeeProjectRequestCounter(viewer: MaybeUser, profileUserId: number): boolean {
  return isFirstTeamOneMember(viewer) && viewer?.id === profileUserId;
}

/** The SSH keys section shows on one's own profile, for developers only. */
export function canSeeSshKeys(viewer: MaybeUser, profileUserId: number): boolean {
  return isDeveloper(viewer) && viewer?.id === profileUserId;
}
