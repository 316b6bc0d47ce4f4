import { describe, expect, it } from 'vitest';
import type { CurrentUser } from '../queries/current-user.ts';
import { canSeeLevels, isAdminDeveloper, isFirstTeamOneMember, roleOf } from './roles.ts';

const base: CurrentUser = {
  id: 1,
  name: 'Sam',
  name_slug: 'sam',
  email: 'sam@devplein.test',
  email_verified_at: new Date(),
  disabled_at: null,
  admin: false,
  developer: false,
  group: null,
  teams: [],
};
const user = (changes: Partial<CurrentUser>): CurrentUser => ({ ...base, ...changes });

describe('roles of spec §6', () => {
  it('orders anonymous, not activated, student, developer, admin', () => {
    expect(roleOf(null)).toBe('anonymous');
    expect(roleOf(user({ email_verified_at: null }))).toBe('not_activated');
    expect(roleOf(user({ disabled_at: new Date() }))).toBe('not_activated');
    expect(roleOf(user({}))).toBe('student');
    expect(roleOf(user({ developer: true }))).toBe('developer');
    expect(roleOf(user({ admin: true }))).toBe('admin');
  });

  it('gives Levels to users with a group who are developers or in an SD cohort', () => {
    expect(canSeeLevels(user({ group: { id: 1, cohort: 'SD23' } }))).toBe(true);
    expect(canSeeLevels(user({ group: { id: 1, cohort: 'MBO4' } }))).toBe(false);
    expect(canSeeLevels(user({ group: { id: 1, cohort: 'MBO4' }, developer: true }))).toBe(true);
    expect(canSeeLevels(user({ developer: true }))).toBe(false);
  });

  it('knows the first team is the one with the lowest id', () => {
    expect(isFirstTeamOneMember(user({ teams: [{ id: 1, name: 'Beheer' }, { id: 3, name: 'X' }] }))).toBe(true);
    expect(isFirstTeamOneMember(user({ teams: [{ id: 2, name: 'Y' }] }))).toBe(false);
    expect(isFirstTeamOneMember(user({ teams: [{ id: 1, name: 'Beheer' }], email_verified_at: null }))).toBe(false);
  });

  it('separates admins who are developers from those who are not', () => {
    expect(isAdminDeveloper(user({ admin: true, developer: true }))).toBe(true);
    expect(isAdminDeveloper(user({ admin: true }))).toBe(false);
  });
});
