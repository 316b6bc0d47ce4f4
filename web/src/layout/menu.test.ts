import { describe, expect, it } from 'vitest';
import { demoUsers, makeUser } from '../../../tests/support/web/users.ts';
import { sideMenuSections } from './menu.ts';

const itemIds = (user: Parameters<typeof sideMenuSections>[0]): string[] => sideMenuSections(user).flatMap((section) => section.items.map((item) => item.id));

describe('the side menu of spec §2 with the role rules of §6', () => {
  it('shows an admin developer the teachers’ and the developers’ items', () => {
    const ids = itemIds(demoUsers.adminDeveloper);
    expect(ids).toEqual(expect.arrayContaining(['admin-users', 'admin-dockers', 'databases', 'vpn']));
  });

  // The server refuses every flag of an account that is not activated (its policies and these
  // menus share @devplein/contract/roles); before issue 36 the menu showed them anyway.
  it('shows a not activated account with the admin and developer flags none of their items', () => {
    const inactive = makeUser({ email_verified_at: null, admin: true, developer: true, group: { id: 1, cohort: 'SD23' } });
    const ids = itemIds(inactive);
    for (const id of ['admin-users', 'admin-dockers', 'admin-status', 'databases', 'vpn', 'levels']) expect(ids).not.toContain(id);
    expect(ids).toContain('dockers');
  });
});
