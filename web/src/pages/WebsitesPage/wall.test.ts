import { describe, expect, it } from 'vitest';
import type { Site } from '../../api/queries/sites.ts';
import { ALL_COHORTS, cohortsOf, filterWall, groupByCohort, ownSites, prepareWall } from './wall.ts';

const placeholder = { id: 0, name: 'unknown', group: { id: 0, cohort: 'Niet ingedeeld' } };
const sites: Site[] = [
  { name: 'daan-portfolio', domain: 'd.test', users: [{ id: 7, name: 'Daan de Vries', group: { id: 1, cohort: 'SD20' } }], thumbnail: true },
  {
    name: 'webshop-groen',
    domain: 'w.test',
    users: [
      { id: 3, name: 'Olga Ontwikkelaar', group: { id: 3, cohort: 'SD22' } },
      { id: 9, name: 'Emma Smits', group: { id: 3, cohort: 'SD22' } },
    ],
    thumbnail: false,
  },
  { name: 'zoe-blog', domain: 'z.test', users: [placeholder, { id: 5, name: 'Zoë Zonderklas', group: null }], thumbnail: false },
];

describe('the websites wall in the browser', () => {
  const wall = prepareWall(sites);

  it('groups by the first member’s cohort and leaves the placeholder out of the members', () => {
    expect(wall.map((entry) => entry.cohort)).toEqual(['SD20', 'SD22', 'Niet ingedeeld']);
    expect(wall[2]?.memberNames).toEqual(['Zoë Zonderklas']);
    expect(cohortsOf(wall)).toEqual(['SD20', 'SD22']);
    expect(groupByCohort(wall).map((block) => block.cohort)).toEqual(['SD20', 'SD22', 'Niet ingedeeld']);
  });

  it('filters by cohort and by site or member name, ignoring case; the placeholder name does not match', () => {
    expect(filterWall(wall, 'SD22', '').map((entry) => entry.site.name)).toEqual(['webshop-groen']);
    expect(filterWall(wall, ALL_COHORTS, 'emma').map((entry) => entry.site.name)).toEqual(['webshop-groen']);
    expect(filterWall(wall, ALL_COHORTS, ' PORTFOLIO ').map((entry) => entry.site.name)).toEqual(['daan-portfolio']);
    expect(filterWall(wall, ALL_COHORTS, 'unknown')).toEqual([]);
    expect(filterWall(wall, 'Niet ingedeeld', 'zoë').map((entry) => entry.site.name)).toEqual(['zoe-blog']);
  });

  it('finds one’s own sites by member id, including behind the placeholder', () => {
    expect(ownSites(wall, 5).map((entry) => entry.site.name)).toEqual(['zoe-blog']);
    expect(ownSites(wall, 0)).toEqual([]);
    expect(ownSites(wall, null)).toEqual([]);
  });
});
