import type { CurrentUser } from '../api/queries/user.ts';

/*
 * The role rules of spec §6 as pure functions of the signed-in user (null = signed out).
 * The UI only hides what the server forbids; the control plane's policies decide.
 */

type MaybeUser = CurrentUser | null | undefined;

export function isSignedIn(user: MaybeUser): user is CurrentUser {
  return user !== null && user !== undefined;
}

/** Activated accounts have an e-mail verification date; the others land on /not_verified. */
export function isVerified(user: MaybeUser): boolean {
  return isSignedIn(user) && user.email_verified_at !== null;
}

export function isAdmin(user: MaybeUser): boolean {
  return isSignedIn(user) && user.admin;
}

export function isDeveloper(user: MaybeUser): boolean {
  return isSignedIn(user) && user.developer;
}

/** Menu items Databases and VPN are for developers. */
export function canSeeDeveloperTools(user: MaybeUser): boolean {
  return isDeveloper(user);
}

/** Levels: the user has a group and is a developer or in a cohort starting with 'SD'. */
export function canSeeLevels(user: MaybeUser): boolean {
  if (!isSignedIn(user) || user.group === null) return false;
  return user.developer || user.group.cohort.startsWith('SD');
}

/**
 * Admin menu items Gebruikers, Teams, Meelopers, Levels per student, Levelinhoud and
 * Levelcategorieën are for admins who are also developers.
 */
export function showAdminDeveloperItems(user: MaybeUser): boolean {
  return isAdmin(user) && isDeveloper(user);
}

/** The user's first team is the one with the lowest id; undefined without teams. */
export function firstTeamId(user: MaybeUser): number | undefined {
  if (!isSignedIn(user) || user.teams.length === 0) return undefined;
  return Math.min(...user.teams.map((team) => team.id));
}

/** The new-project-request counter shows on one's own profile when one's first team is team 1. */
export function canSeeProjectRequestCounter(viewer: MaybeUser, profileUserId: number): boolean {
  return isSignedIn(viewer) && viewer.id === profileUserId && firstTeamId(viewer) === 1;
}

/** The SSH keys section shows on one's own profile, for developers only. */
export function canSeeSshKeys(viewer: MaybeUser, profileUserId: number): boolean {
  return isSignedIn(viewer) && viewer.id === profileUserId && viewer.developer;
}
