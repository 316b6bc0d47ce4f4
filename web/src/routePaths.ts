import { generatePath } from 'react-router-dom';

/**
 * Every route of spec §2 by name. Code navigates by name (e.g. a docker create success goes to
 * `mydockers`), so a path can change in one place.
 */
export const routePaths = {
  home: '/',
  websites: '/websites',
  login: '/login',
  usefulLinks: '/useful-links',
  gitGuide: '/useful-links/git',
  levels: '/levels',
  level: '/level/:id',
  profile: '/profile/:id/:name',
  myProfile: '/profile',
  exams: '/exams',
  dockersCreate: '/dockers/create',
  mydockers: '/dockers',
  databases: '/databases',
  vpn: '/vpn',
  notVerified: '/not_verified',
  adminUsers: '/admin/users',
  adminTeams: '/admin/users/teams',
  adminLevels: '/admin/levels',
  adminLevelContent: '/admin/levels/content',
  adminLevelContentCreate: '/admin/levels/content/create',
  adminLevelContentEdit: '/admin/levels/content/:id',
  adminLevelCategories: '/admin/levels/categories',
  adminLevelCategoryCreate: '/admin/levels/categories/create',
  adminLevelCategoryEdit: '/admin/levels/categories/:id',
  adminDockers: '/admin/dockers',
  adminDockersOpen: '/admin/dockers/open',
  adminDockerImages: '/admin/dockers/images',
  adminProjects: '/admin/projects',
  adminLicenses: '/admin/licenses',
  adminGroups: '/admin/groups',
  adminIntroducees: '/admin/hangers',
  adminAudit: '/admin/audit',
  adminStatus: '/admin/status',
  adminOverview: '/admin/overzicht',
} as const;

export type RouteName = keyof typeof routePaths;

/** The concrete path of a named route, e.g. `pathTo('level', { id: 3 })`. */
export function pathTo(name: RouteName, params: Record<string, string | number> = {}): string {
  const stringParams = Object.fromEntries(Object.entries(params).map(([key, value]) => [key, String(value)]));
  return generatePath(routePaths[name], stringParams);
}

/** Link to a user's public profile: /profile/{id}/{name_slug}. */
export function profilePath(user: { id: number; name_slug: string }): string {
  return generatePath(routePaths.profile, { id: String(user.id), name: user.name_slug });
}
