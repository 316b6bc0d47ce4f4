import type { AdminUserJson as AdminUser, CurrentUserJson, MemberJson } from '@devplein/contract/users';

/** The signed-in user as the web app reads it (web's CurrentUser: the answer without `levelCategories`). */
type CurrentUser = Omit<CurrentUserJson, 'levelCategories'>;

/** A signed-in user as GET /api/user returns it; override what a test is about. */
export function makeUser(overrides: Partial<CurrentUser> = {}): CurrentUser {
  return {
    id: 7,
    name: 'Sam Student',
    name_slug: 'sam-student',
    email: 'student@devplein.test',
    email_verified_at: '2024-09-01T08:00:00.000Z',
    admin: false,
    developer: false,
    teams: [],
    group: { id: 4, cohort: 'SD23' },
    ...overrides,
  };
}

/** The demo accounts of the seed (brief), by role. */
export const demoUsers = {
  adminDeveloper: makeUser({
    id: 1,
    name: 'Anna Admin',
    name_slug: 'anna-admin',
    email: 'admin@devplein.test',
    admin: true,
    developer: true,
    teams: [{ id: 1, name: 'Team devplein' }],
    group: null,
  }),
  teacherAdmin: makeUser({
    id: 2,
    name: 'Dirk Docent',
    name_slug: 'dirk-docent',
    email: 'docent@devplein.test',
    admin: true,
    developer: false,
    group: null,
  }),
  developer: makeUser({
    id: 3,
    name: 'Olga Ontwikkelaar',
    name_slug: 'olga-ontwikkelaar',
    email: 'ontwikkelaar@devplein.test',
    developer: true,
    group: { id: 3, cohort: 'SD22' },
  }),
  student: makeUser(),
  withoutGroup: makeUser({ id: 8, name: 'Zoë Zonderklas', name_slug: 'zoe-zonderklas', email: 'zonderklas@devplein.test', group: null }),
  notVerified: makeUser({ id: 9, name: 'Nina Nieuw', name_slug: 'nina-nieuw', email: 'nieuw@devplein.test', email_verified_at: null }),
} as const;

/** A row of the users admin (GET /api/admin/users); `extra` for the developer flag and what is pending. */
export function makeAdminUser(
  id: number,
  name: string,
  cohort: string | null,
  verified: boolean,
  disabled = false,
  extra: Partial<Pick<AdminUser, 'developer' | 'access_not_done'>> = {},
): AdminUser {
  return {
    id,
    name,
    email: `u${id}@devplein.test`,
    group: cohort === null ? null : { id: cohort.length, cohort },
    email_verified_at: verified ? '2024-01-01T00:00:00.000Z' : null,
    disabled_at: disabled ? '2024-02-01T00:00:00.000Z' : null,
    developer: false,
    access_not_done: null,
    ...extra,
  };
}

/** A team or group member as GET /api/admin/teams/{id} and /api/admin/groups/{id} list them. */
export function makeMember(overrides: Partial<MemberJson> = {}): MemberJson {
  return { id: 4, name: 'Sam Student', email: 'student@devplein.test', group: { id: 4, cohort: 'SD23' }, ...overrides };
}
