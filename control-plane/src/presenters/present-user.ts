import type { CurrentUser } from '../auth/current-user.ts';
import type { LevelCategoryProgressJson } from './present-level-categories.ts';

/** GET /api/user: the signed-in user with flags, teams and group. */
export interface CurrentUserJson {
  id: number;
  name: string;
  name_slug: string;
  email: string;
  email_verified_at: string | null;
  admin: boolean;
  developer: boolean;
  teams: { id: number; name: string }[];
  group: { id: number; cohort: string } | null;
  /**
   * Finished levels per category ('{title} afgerond'), with the §9 count rule; empty for users
   * without levels (teachers, students outside the level programme).
   */
  levelCategories: LevelCategoryProgressJson[];
}

export function presentCurrentUser(user: CurrentUser, levelCategories: LevelCategoryProgressJson[]): CurrentUserJson {
  return {
    id: user.id,
    name: user.name,
    name_slug: user.name_slug,
    email: user.email,
    email_verified_at: user.email_verified_at?.toISOString() ?? null,
    admin: user.admin,
    developer: user.developer,
    teams: user.teams.map((team) => ({ id: team.id, name: team.name })),
    group: user.group ? { id: user.group.id, cohort: user.group.cohort } : null,
    levelCategories,
  };
}

/** GET /api/user/{id}: what a profile shows of someone (§2 Profile), without account internals. */
export type ProfileJson = Omit<CurrentUserJson, 'email_verified_at'>;

export function presentProfile(user: CurrentUser, levelCategories: LevelCategoryProgressJson[]): ProfileJson {
  const { email_verified_at: _hidden, ...rest } = presentCurrentUser(user, levelCategories);
  return rest;
}
