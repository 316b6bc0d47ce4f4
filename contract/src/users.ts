/** The users' JSON as the control plane sends it and the web app reads it: the signed-in user, profiles, the admin users, teams, groups and audit screens, user search. */
import { z } from 'zod';
import { levelCategoryProgressJson } from './levels.ts';

/** GET /api/user: the signed-in user with flags, teams and group. */
export const currentUserJson = z.strictObject({
  id: z.number().int(),
  name: z.string(),
  name_slug: z.string(),
  email: z.string(),
  /** null: not activated (spec §4); the web app shows /not_verified. */
  email_verified_at: z.iso.datetime({ offset: true }).nullable(),
  admin: z.boolean(),
  developer: z.boolean(),
  teams: z.array(z.strictObject({ id: z.number().int(), name: z.string() })),
  group: z.strictObject({ id: z.number().int(), cohort: z.string() }).nullable(),
  /**
   * Finished levels per category ('{title} afgerond'), with the §9 count rule; empty for users
   * without levels (teachers, students outside the level programme).
   */
  levelCategories: z.array(levelCategoryProgressJson),
});
export type CurrentUserJson = z.infer<typeof currentUserJson>;

/** GET /api/user/{id}: what a profile shows of someone (§2 Profile), without account internals. */
export const profileJson = currentUserJson.omit({ email_verified_at: true });
export type ProfileJson = z.infer<typeof profileJson>;

/** GET /api/admin/users item, and the answer of PUT /api/admin/users/{id}. */
export const adminUserJson = z.strictObject({
  id: z.number().int(),
  name: z.string(),
  email: z.string(),
  group: z.strictObject({ id: z.number().int(), cohort: z.string() }).nullable(),
  /** null: not activated (spec §4). */
  email_verified_at: z.iso.datetime({ offset: true }).nullable(),
  /** Set: disabled, signed out and unable to sign in until activated again. */
  disabled_at: z.iso.datetime({ offset: true }).nullable(),
  /** Spec §3 developer flag: databases, VPN and SSH keys. */
  developer: z.boolean(),
  /**
   * What the dev servers have not done yet of this user's access (a server did not answer);
   * retried by itself. Null when everything is done.
   */
  access_not_done: z.string().nullable(),
});
export type AdminUserJson = z.infer<typeof adminUserJson>;

/**
 * A hit of POST /api/users/search: id and name for everyone (spec §7 "users with id and name");
 * admins also get the cohort (`group`) and whether the account is active.
 */
export const userSearchHitJson = z.strictObject({
  id: z.number().int(),
  name: z.string(),
  group: z.strictObject({ id: z.number().int(), cohort: z.string() }).nullable().optional(),
  active: z.boolean().optional(),
});
export type UserSearchHitJson = z.infer<typeof userSearchHitJson>;

/**
 * One group of GET /api/admin/groups: exactly {id, cohort} (the levels page's selector relies on
 * that shape); `member_count` only when the caller asked for counts (?counts=true, the groups page).
 */
export const groupJson = z.strictObject({
  id: z.number().int(),
  cohort: z.string(),
  member_count: z.number().int().optional(),
});
export type GroupJson = z.infer<typeof groupJson>;

/** A team button on the teams page: GET /api/admin/teams. */
export const teamSummaryJson = z.strictObject({
  id: z.number().int(),
  name: z.string(),
  member_count: z.number().int(),
});
export type TeamSummaryJson = z.infer<typeof teamSummaryJson>;

/** One member row: GET/PUT /api/admin/teams/{id} (and the groups page's members). */
export const memberJson = z.strictObject({
  id: z.number().int(),
  name: z.string(),
  email: z.string(),
  group: z.strictObject({ id: z.number().int(), cohort: z.string() }).nullable(),
});
export type MemberJson = z.infer<typeof memberJson>;

/** One entry of GET /api/admin/audit. `subject_name` is the user's name when the subject is a user that still exists. */
export const auditEntryJson = z.strictObject({
  id: z.number().int(),
  created_at: z.iso.datetime({ offset: true }),
  actor: z.strictObject({ id: z.number().int(), name: z.string() }).nullable(),
  action: z.string(),
  subject_type: z.string().nullable(),
  subject_id: z.string().nullable(),
  subject_name: z.string().nullable(),
  before: z.record(z.string(), z.unknown()).nullable(),
  after: z.record(z.string(), z.unknown()).nullable(),
});
export type AuditEntryJson = z.infer<typeof auditEntryJson>;
