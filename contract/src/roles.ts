/**
 * The role rules of spec §6 as pure functions of a user (null or undefined: signed out), one
 * definition for the control plane's policies and the web app's menus and pages. The server's
 * user (`CurrentUser`, dates) and the web's (`CurrentUserJson`, ISO strings) both fit `RoleSubject`.
 * The web only hides what the server forbids; the server's policies decide.
 */

/** What the rules read of a user. `disabled_at` is absent in the web's copy: a disabled user has no session. */
export interface RoleSubject {
  id: number;
  email_verified_at: unknown;
  disabled_at?: unknown;
  admin: boolean;
  developer: boolean;
  group: { cohort: string } | null;
  teams: readonly { id: number }[];
}

type MaybeUser<User extends RoleSubject> = User | null | undefined;

/** The roles of spec §6, from least to most. */
export type Role = 'anonymous' | 'not_activated' | 'student' | 'developer' | 'admin';

export const isSignedIn = <User extends RoleSubject>(user: MaybeUser<User>): user is User => user !== null && user !== undefined;

/** Activated (an e-mail verification date) and not disabled: every API route but GET /api/user asks this. */
export const isVerified = <User extends RoleSubject>(user: MaybeUser<User>): user is User =>
  isSignedIn(user) && user.email_verified_at !== null && user.email_verified_at !== undefined && (user.disabled_at ?? null) === null;

/** An activated admin (a teacher: spec §6 calls them docent). */
export const isAdmin = (user: MaybeUser<RoleSubject>): boolean => isVerified(user) && user.admin;

/** An activated developer: databases, VPN and SSH keys. */
export const isDeveloper = (user: MaybeUser<RoleSubject>): boolean => isVerified(user) && user.developer;

/** Admin menu items for people, levels and introducees are for admins who are also developers (§6). */
export const isAdminDeveloper = (user: MaybeUser<RoleSubject>): boolean => isAdmin(user) && isDeveloper(user);

/** "First team" is the team with the lowest id (§6); undefined without teams. */
export const firstTeamId = (user: MaybeUser<RoleSubject>): number | undefined =>
  isSignedIn(user) && user.teams.length > 0 ? Math.min(...user.teams.map((team) => team.id)) : undefined;

/** Members of team 1 see the new-project-request counter (§6). */
export const isFirstTeamOneMember = (user: MaybeUser<RoleSubject>): boolean => isVerified(user) && firstTeamId(user) === 1;

/** Levels are for activated users with a group who are developers or in a cohort starting with SD (§6). */
export const canSeeLevels = (user: MaybeUser<RoleSubject>): boolean =>
  isVerified(user) && user.group !== null && (user.developer || user.group.cohort.startsWith('SD'));

export function roleOf(user: MaybeUser<RoleSubject>): Role {
  if (!isSignedIn(user)) return 'anonymous';
  if (!isVerified(user)) return 'not_activated';
  if (user.admin) return 'admin';
  if (user.developer) return 'developer';
  return 'student';
}
