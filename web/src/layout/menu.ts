import type { CurrentUser } from '../api/queries/user.ts';
import type { IconName } from '../components/Icon.tsx';
import { routePaths } from '../routePaths.ts';
import { canSeeDeveloperTools, canSeeLevels, isAdmin, isSignedIn, showAdminDeveloperItems } from './roles.ts';

/** One link of the side menu; `id` is stable for tests (`data-testid="menu-{id}"`). */
export interface MenuItem {
  id: string;
  label: string;
  to: string;
  icon: IconName;
}

export interface MenuSection {
  id: string;
  title: string;
  items: MenuItem[];
}

/**
 * The side menu of spec §2 "Menus" with the role rules of §6, as data. Sections without visible
 * items are left out.
 */
export function sideMenuSections(user: CurrentUser | null): MenuSection[] {
  const signedIn = isSignedIn(user);

  const onlineTools: MenuItem[] = [
    ...(signedIn ? [item('dockers', 'Dockers', routePaths.mydockers, 'box')] : []),
    item('websites', 'Websites', routePaths.websites, 'globe'),
    ...(signedIn ? [] : [item('login', 'Inloggen', routePaths.login, 'login')]),
    ...(canSeeDeveloperTools(user)
      ? [item('databases', 'Databases', routePaths.databases, 'database'), item('vpn', 'VPN', routePaths.vpn, 'shield')]
      : []),
  ];

  const personal: MenuItem[] = [
    item('profile', 'Profiel bewerken', routePaths.myProfile, 'user'),
    ...(canSeeLevels(user) ? [item('levels', 'Levels', routePaths.levels, 'stairs')] : []),
    item('useful-links', 'Handige links', routePaths.usefulLinks, 'link'),
  ];

  const admin: MenuItem[] = isAdmin(user)
    ? [
        ...(showAdminDeveloperItems(user)
          ? [
              item('admin-users', 'Gebruikers', routePaths.adminUsers, 'users'),
              item('admin-teams', 'Teams', routePaths.adminTeams, 'team'),
              item('admin-introducees', 'Meelopers', routePaths.adminIntroducees, 'walk'),
              item('admin-levels', 'Levels per student', routePaths.adminLevels, 'grid'),
              item('admin-level-content', 'Levelinhoud', routePaths.adminLevelContent, 'layers'),
              item('admin-level-categories', 'Levelcategorieën', routePaths.adminLevelCategories, 'tag'),
            ]
          : []),
        item('admin-dockers', 'Dockers', routePaths.adminDockers, 'box'),
        item('admin-dockers-open', 'Projecten ter goedkeuring', routePaths.adminDockersOpen, 'checkCircle'),
        item('admin-projects', 'Alle projecten', routePaths.adminProjects, 'folder'),
        item('admin-licenses', 'Licenties', routePaths.adminLicenses, 'key'),
        item('admin-groups', 'Groepen', routePaths.adminGroups, 'groups'),
        item('admin-audit', 'Logboek', routePaths.adminAudit, 'clock'),
        item('admin-status', 'Status', routePaths.adminStatus, 'activity'),
        item('admin-overview', 'Overzicht', routePaths.adminOverview, 'chart'),
      ]
    : [];

  return [
    { id: 'online-tools', title: 'Online tools', items: onlineTools },
    { id: 'personal', title: 'Persoonlijk', items: personal },
    { id: 'admin', title: 'Admin', items: admin },
  ].filter((section) => section.items.length > 0);
}

function item(id: string, label: string, to: string, icon: IconName): MenuItem {
  return { id, label, to, icon };
}
