import { describe, expect, it } from 'vitest';
import { demoUsers, makeUser } from '../../../tests/support/web/users.ts';
import {
  canSeeDeveloperTools,
  canSeeLevels,
  canSeeProjectRequestCounter,
  canSeeSshKeys,
  firstTeamId,
  isAdmin,
  isDeveloper,
  isSignedIn,
  isVerified,
  showAdminDeveloperItems,
} from './roles.ts';

describe('role rules of spec §6', () => {
  it('treats a missing user as signed out with no rights', () => {
    for (const user of [null, undefined]) {
      expect(isSignedIn(user)).toBe(false);
      expect(isVerified(user)).toBe(false);
      expect(isAdmin(user)).toBe(false);
      expect(isDeveloper(user)).toBe(false);
      expect(canSeeLevels(user)).toBe(false);
      expect(showAdminDeveloperItems(user)).toBe(false);
      expect(canSeeDeveloperTools(user)).toBe(false);
    }
  });

  it('calls a user without email_verified_at not verified', () => {
    expect(isVerified(demoUsers.notVerified)).toBe(false);
    expect(isVerified(demoUsers.student)).toBe(true);
  });

  it('shows the admin+developer menu items only to admins who are developers', () => {
    expect(showAdminDeveloperItems(demoUsers.adminDeveloper)).toBe(true);
    expect(showAdminDeveloperItems(demoUsers.teacherAdmin)).toBe(false);
    expect(showAdminDeveloperItems(demoUsers.developer)).toBe(false);
    expect(isAdmin(demoUsers.teacherAdmin)).toBe(true);
  });

  it('gives a not activated account none of its flags, as the server does (issue 36)', () => {
    const inactive = makeUser({ email_verified_at: null, admin: true, developer: true, group: { id: 1, cohort: 'SD23' }, teams: [{ id: 1, name: 'devplein' }] });
    expect(isSignedIn(inactive)).toBe(true);
    expect(isAdmin(inactive)).toBe(false);
    expect(isDeveloper(inactive)).toBe(false);
    expect(showAdminDeveloperItems(inactive)).toBe(false);
    expect(canSeeDeveloperTools(inactive)).toBe(false);
    expect(canSeeLevels(inactive)).toBe(false);
    expect(canSeeProjectRequestCounter(inactive, inactive.id)).toBe(false);
    expect(canSeeSshKeys(inactive, inactive.id)).toBe(false);
  });

  it('gives Databases and VPN to developers only', () => {
    expect(canSeeDeveloperTools(demoUsers.developer)).toBe(true);
    expect(canSeeDeveloperTools(demoUsers.adminDeveloper)).toBe(true);
    expect(canSeeDeveloperTools(demoUsers.teacherAdmin)).toBe(false);
    expect(canSeeDeveloperTools(demoUsers.student)).toBe(false);
  });

  describe('Levels', () => {
    it('needs a group', () => {
      expect(canSeeLevels(makeUser({ group: null, developer: true }))).toBe(false);
      expect(canSeeLevels(demoUsers.adminDeveloper)).toBe(false);
    });

    it('is open to a cohort starting with SD', () => {
      expect(canSeeLevels(makeUser({ group: { id: 1, cohort: 'SD23' } }))).toBe(true);
      expect(canSeeLevels(makeUser({ group: { id: 1, cohort: 'SD20' } }))).toBe(true);
    });

    it('is open to developers in any group', () => {
      expect(canSeeLevels(makeUser({ developer: true, group: { id: 1, cohort: 'MV21' } }))).toBe(true);
    });

    it('is closed to non-developers of other cohorts (prefix is case-sensitive)', () => {
      expect(canSeeLevels(makeUser({ group: { id: 1, cohort: 'MV21' } }))).toBe(false);
      expect(canSeeLevels(makeUser({ group: { id: 1, cohort: 'sd21' } }))).toBe(false);
      expect(canSeeLevels(makeUser({ group: { id: 1, cohort: 'XSD21' } }))).toBe(false);
    });
  });

  describe('profile sections', () => {
    it('takes the lowest team id as the first team', () => {
      expect(firstTeamId(makeUser({ teams: [{ id: 5, name: 'b' }, { id: 1, name: 'a' }] }))).toBe(1);
      expect(firstTeamId(makeUser({ teams: [] }))).toBeUndefined();
    });

    it('shows the request counter only on one own profile with first team 1', () => {
      const member = makeUser({ id: 3, teams: [{ id: 1, name: 'devplein' }] });
      expect(canSeeProjectRequestCounter(member, 3)).toBe(true);
      expect(canSeeProjectRequestCounter(member, 4)).toBe(false);
      expect(canSeeProjectRequestCounter(makeUser({ id: 3, teams: [{ id: 2, name: 'x' }] }), 3)).toBe(false);
      expect(canSeeProjectRequestCounter(makeUser({ id: 3, teams: [{ id: 2, name: 'x' }, { id: 1, name: 'y' }] }), 3)).toBe(true);
      expect(canSeeProjectRequestCounter(null, 3)).toBe(false);
    });

    it('shows SSH keys only on one own profile for developers', () => {
      expect(canSeeSshKeys(demoUsers.developer, demoUsers.developer.id)).toBe(true);
      expect(canSeeSshKeys(demoUsers.developer, 99)).toBe(false);
      expect(canSeeSshKeys(demoUsers.student, demoUsers.student.id)).toBe(false);
    });
  });
});
