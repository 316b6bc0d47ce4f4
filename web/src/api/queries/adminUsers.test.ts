import { describe, expect, it } from 'vitest';
import { cohortsOf, filterUsers, indexUsers, isActiveUser, type AdminUser } from './adminUsers.ts';
import { makeAdminUser } from '../../../../tests/support/web/users.ts';

const user = makeAdminUser;

const users = [
  user(1, 'Zoë Zonderklas', null, true),
  user(2, 'Nina Nieuw', 'SD23', false),
  user(3, 'Sam Student', 'SD23', true),
  user(4, 'Olga Ontwikkelaar', 'SD22', true),
  user(5, 'Rick Blom', null, true, true),
  user(6, 'import', 'SD23', false),
];
const indexed = indexUsers(users);
const names = (list: AdminUser[]) => list.map((u) => u.name);

describe('filterUsers (spec §2 Users)', () => {
  it('lists users without verification date (sorted by name as a Dutch reader expects) when the checkbox is on, the verified ones when off', () => {
    expect(names(filterUsers(indexed, { name: '', cohort: '', notActivated: true }))).toEqual(['import', 'Nina Nieuw']);
    expect(names(filterUsers(indexed, { name: '', cohort: '', notActivated: false }))).toEqual([
      'Olga Ontwikkelaar',
      'Rick Blom',
      'Sam Student',
      'Zoë Zonderklas',
    ]);
  });

  it('filters by cohort, with geen for users without a group', () => {
    expect(names(filterUsers(indexed, { name: '', cohort: 'SD23', notActivated: false }))).toEqual(['Sam Student']);
    expect(names(filterUsers(indexed, { name: '', cohort: 'geen', notActivated: false }))).toEqual(['Rick Blom', 'Zoë Zonderklas']);
  });

  it('filters by a part of the name, ignoring case and accents', () => {
    expect(names(filterUsers(indexed, { name: 'ZOE', cohort: '', notActivated: false }))).toEqual(['Zoë Zonderklas']);
    expect(names(filterUsers(indexed, { name: ' stud ', cohort: 'SD23', notActivated: false }))).toEqual(['Sam Student']);
    expect(filterUsers(indexed, { name: 'xyz', cohort: '', notActivated: false })).toEqual([]);
  });

  it('filters 400 users well within a frame', () => {
    const many = indexUsers(Array.from({ length: 400 }, (_, i) => user(i, `Student ${i} ${i % 2 ? 'de Vries' : 'Jansen'}`, `SD2${i % 4}`, i % 5 !== 0)));
    const started = performance.now();
    for (let i = 0; i < 100; i++) filterUsers(many, { name: 'vries', cohort: 'SD21', notActivated: false });
    expect((performance.now() - started) / 100).toBeLessThan(5);
  });
});

describe('helpers', () => {
  it('offers the cohorts sorted, and knows who is active', () => {
    expect(cohortsOf(users)).toEqual(['SD22', 'SD23']);
    expect(users.map(isActiveUser)).toEqual([true, false, true, true, false, false]);
  });
});
