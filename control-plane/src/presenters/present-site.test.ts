import { describe, expect, it } from 'vitest';
import { PLACEHOLDER_MEMBER, presentSite, presentSiteWall } from './present-site.ts';
import type { SiteRecord } from '../queries/sites.ts';

const member = (id: number, cohort: string | null) => ({ id, name: `Lid ${id}`, group: cohort ? { id: id * 10, cohort } : null });
const site = (name: string, users: SiteRecord['users'], thumbnail = false): SiteRecord => ({ name, domain: `${name}.dev.test`, users, thumbnail });

describe('presentSite', () => {
  it('keeps a site whose first member has a group as it is', () => {
    const record = site('alpha', [member(1, 'SD22'), member(2, null)]);
    expect(presentSite(record).users).toEqual(record.users);
  });

  it('puts the placeholder user in front when the first member has no group, keeping the real members', () => {
    const presented = presentSite(site('beta', [member(3, null), member(4, 'SD21')]));
    expect(presented.users[0]).toEqual({ id: 0, name: 'unknown', group: { id: 0, cohort: 'Niet ingedeeld' } });
    expect(presented.users.slice(1).map((user) => user.id)).toEqual([3, 4]);
  });

  it('gives a site without members only the placeholder, and never shares the frozen constant', () => {
    const presented = presentSite(site('gamma', []));
    expect(presented.users).toEqual([PLACEHOLDER_MEMBER]);
    expect(presented.users[0]).not.toBe(PLACEHOLDER_MEMBER);
    expect(Object.isFrozen(presented.users[0])).toBe(false);
  });

  it('says whether the site has a thumbnail', () => {
    expect(presentSite(site('delta', [member(5, 'SD22')], true)).thumbnail).toBe(true);
    expect(presentSite(site('epsilon', [member(6, null)])).thumbnail).toBe(false);
  });
});

describe('presentSiteWall', () => {
  it('sorts by cohort (naturally), then name, with Niet ingedeeld last', () => {
    const wall = presentSiteWall([
      site('zeta', [member(1, null)]),
      site('beta', [member(2, 'SD10')]),
      site('alpha', [member(3, 'SD9')]),
      site('delta', [member(4, 'SD10')]),
      site('aap', []),
      site('omega', [member(5, 'AO1')]),
    ]);
    expect(wall.map((entry) => entry.name)).toEqual(['omega', 'alpha', 'beta', 'delta', 'aap', 'zeta']);
  });
});
