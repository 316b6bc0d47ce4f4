import type { CurrentUser } from '../queries/current-user.ts';
import type { LevelCategoryProgressJson } from './present-level-categories.ts';
import type { CurrentUserJson, ProfileJson } from '@devplein/contract/users';
export type { CurrentUserJson, ProfileJson };

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

export function presentProfile(user: CurrentUser, levelCategories: LevelCategoryProgressJson[]): ProfileJson {
  const { email_verified_at: _hidden, ...rest } = presentCurrentUser(user, levelCategories);
  return rest;
}
