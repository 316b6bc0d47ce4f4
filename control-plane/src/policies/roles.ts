import type { CurrentUser } from '../auth/current-user.ts';

/** The roles of spec §6, from least to most. */
export type Role = 'anonymous' | 'not_activated' | 'student' | 'developer' | 'admin';

export const isVerified = (user: CurrentUser | null): user is CurrentUser =>
  user !== null && user.email_verified_at !== null && user.disabled_at === null;

export const isAdmin = (user: CurrentUser | null): boolean => isVerified(user) && user.admin;

export const isDeveloper = (user: CurrentUser | null): boolean => isVerified(user) && user.developer;

/** Admin menu items for people, levels and introducees are for admins who are also developers (§6). */
export const isAdminDeveloper = (user: CurrentUser | null): boolean => isAdmin(user) && isDeveloper(user);

/** "First team" is the team with the lowest id; members of team 1 see the request counter (§6). */
export const firstTeamId = (user: CurrentUser): number | null => user.teams[0]?.id ?? null;

export const isFirstTeamOneMember = (user: CurrentUser | null): boolean =>
  isVerified(user) && firstTeamId(user) === 1;

/** Levels are for users with a group who are developers or in a cohort starting with SD (§6). */
export const canSeeLevels = (user: CurrentUser | null): boolean =>
  isVerified(user) && user.group !== null && (user.developer || user.group.cohort.startsWith('SD'));

export function roleOf(user: CurrentUser | null): Role {
  if (user === null) return 'anonymous';
  if (!isVerified(user)) return 'not_activated';
  if (user.admin) return 'admin';
  if (user.developer) return 'developer';
  return 'student';
}
