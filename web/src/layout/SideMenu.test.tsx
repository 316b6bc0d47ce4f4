// @vitest-environment jsdom
import { cleanup, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, describe, expect, it } from 'vitest';
import type { CurrentUser } from '../api/queries/user.ts';
import { demoUsers, makeUser } from '../../../tests/support/web/users.ts';
import { SideMenu } from './SideMenu.tsx';

afterEach(cleanup);

function renderMenu(user: CurrentUser | null) {
  render(
    <MemoryRouter>
      <SideMenu user={user} />
    </MemoryRouter>,
  );
  return screen.getByRole('navigation', { name: 'Zijmenu' });
}

/** Section title -> link labels with their targets, in menu order. */
function menuOf(nav: HTMLElement): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  for (const group of within(nav).getAllByRole('group')) {
    const title = within(group).getByRole('heading').textContent ?? '';
    result[title] = within(group)
      .getAllByRole('link')
      .map((link) => `${link.textContent ?? ''} -> ${link.getAttribute('href') ?? ''}`);
  }
  return result;
}

const adminItemsForEveryAdmin = [
  'Dockers -> /admin/dockers',
  'Projecten ter goedkeuring -> /admin/dockers/open',
  'Alle projecten -> /admin/projects',
  'Licenties -> /admin/licenses',
  'Groepen -> /admin/groups',
  'Logboek -> /admin/audit',
  'Status -> /admin/status',
  'Overzicht -> /admin/overzicht',
];

describe('side menu per role (spec §2 Menus, §6)', () => {
  it('signed out: Websites and Inloggen, personal links, no admin', () => {
    expect(menuOf(renderMenu(null))).toEqual({
      'Online tools': ['Websites -> /websites', 'Inloggen -> /login'],
      Persoonlijk: ['Profiel bewerken -> /profile', 'Handige links -> /useful-links'],
    });
  });

  it('student in an SD cohort: Dockers, Websites, Levels; no Inloggen, no developer tools', () => {
    expect(menuOf(renderMenu(demoUsers.student))).toEqual({
      'Online tools': ['Dockers -> /dockers', 'Websites -> /websites'],
      Persoonlijk: ['Profiel bewerken -> /profile', 'Levels -> /levels', 'Handige links -> /useful-links'],
    });
  });

  it('student without a group: no Levels', () => {
    const nav = renderMenu(demoUsers.withoutGroup);
    expect(within(nav).queryByRole('link', { name: 'Levels' })).toBeNull();
  });

  it('developer: Databases and VPN', () => {
    expect(menuOf(renderMenu(demoUsers.developer))).toEqual({
      'Online tools': ['Dockers -> /dockers', 'Websites -> /websites', 'Databases -> /databases', 'VPN -> /vpn'],
      Persoonlijk: ['Profiel bewerken -> /profile', 'Levels -> /levels', 'Handige links -> /useful-links'],
    });
  });

  it('admin who is also a developer: every admin item', () => {
    const menu = menuOf(renderMenu(demoUsers.adminDeveloper));
    expect(menu.Admin).toEqual([
      'Gebruikers -> /admin/users',
      'Teams -> /admin/users/teams',
      'Meelopers -> /admin/hangers',
      'Levels per student -> /admin/levels',
      'Levelinhoud -> /admin/levels/content',
      'Levelcategorieën -> /admin/levels/categories',
      ...adminItemsForEveryAdmin,
    ]);
    // No group, so no Levels even for a developer.
    expect(menu.Persoonlijk).toEqual(['Profiel bewerken -> /profile', 'Handige links -> /useful-links']);
    expect(menu['Online tools']).toContain('Databases -> /databases');
  });

  it('admin who is not a developer: only the items for every admin, no developer tools', () => {
    const menu = menuOf(renderMenu(demoUsers.teacherAdmin));
    expect(menu.Admin).toEqual(adminItemsForEveryAdmin);
    expect(menu['Online tools']).toEqual(['Dockers -> /dockers', 'Websites -> /websites']);
  });

  it('gives every link a stable test id and its label as accessible name', () => {
    const nav = renderMenu(makeUser({ admin: true, developer: true }));
    expect(within(nav).getByTestId('menu-admin-level-categories')).toBe(
      within(nav).getByRole('link', { name: 'Levelcategorieën' }),
    );
    expect(within(nav).getByTestId('menu-dockers').getAttribute('href')).toBe('/dockers');
    expect(within(nav).getByTestId('menu-admin-dockers').getAttribute('href')).toBe('/admin/dockers');
  });
});
