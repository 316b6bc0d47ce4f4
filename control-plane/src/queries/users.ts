import type { Knex } from 'knex';
import type { AgentFleet, AgentLink } from '../agent/agent-fleet.ts';
import { containsPattern, prefixPattern } from '../lib/like-pattern.ts';
import { User } from '../models/User.ts';

export interface UserSearchRow {
  id: number;
  name: string;
  group_id: number | null;
  cohort: string | null;
  email_verified_at: Date | string | null;
  disabled_at: Date | string | null;
}

/** A row of the users admin query: the user joined with their group. */
export interface AdminUserRow {
  id: number;
  name: string;
  email: string;
  group_id: number | null;
  cohort: string | null;
  email_verified_at: Date | string | null;
  disabled_at: Date | string | null;
  developer: boolean;
  /** Dutch: what the dev servers have not done yet of this user's access (pending_host_access), or null. */
  access_not_done: string | null;
}

type Db = Knex | Knex.Transaction;

/**
 * The users admin's view of users: one query, each user joined with their group and what is
 * not done yet of their host access (no N+1 for 400 users). Ordered by name, case-insensitively.
 */
export function adminUserRows(db: Db): Knex.QueryBuilder<AdminUserRow, AdminUserRow[]> {
  return db<AdminUserRow, AdminUserRow[]>('users as u')
    .leftJoin('groups as g', 'g.id', 'u.group_id')
    .leftJoin('pending_host_access as pa', 'pa.user_id', 'u.id')
    .select('u.id', 'u.name', 'u.email', 'u.group_id', 'g.cohort', 'u.email_verified_at', 'u.disabled_at', 'u.developer', 'pa.not_done as access_not_done')
    .orderByRaw('lower(u.name), u.id');
}

/** One user as the users admin sees them; undefined when unknown. */
export async function adminUserRow(db: Db, id: number): Promise<AdminUserRow | undefined> {
  return adminUserRows(db).where('u.id', id).first();
}

/** One user as the users admin sees them, locked for the rest of the transaction; undefined when unknown. */
export async function lockAdminUserRow(trx: Knex.Transaction, id: number): Promise<AdminUserRow | undefined> {
  await trx('users').where({ id }).forUpdate().first('id');
  return adminUserRow(trx, id);
}

/** The audit snapshot of an account: what the admin sees and changes, as plain JSON. */
export function accountSnapshot(row: AdminUserRow): Record<string, unknown> {
  const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());
  return {
    name: row.name,
    email: row.email,
    cohort: row.cohort,
    email_verified_at: iso(row.email_verified_at),
    disabled_at: iso(row.disabled_at),
    developer: Boolean(row.developer),
  };
}

/** Users with their cohort, for the member lists of teams and groups; by name, then id. */
export function memberQuery(db: Db): Knex.QueryBuilder {
  return db('users')
    .leftJoin('groups', 'groups.id', 'users.group_id')
    .select('users.id', 'users.name', 'users.email', 'users.group_id', 'groups.cohort')
    .orderByRaw('lower(users.name), users.id');
}

/** At most this many hits: a search box, not a user list. */
export const USER_SEARCH_LIMIT = 20;

/**
 * People by name or e-mail, case-insensitive "contains" with the LIKE wildcards taken literally:
 * names that start with the part first, then alphabetical; at most USER_SEARCH_LIMIT.
 * Not-activated and disabled accounts only with `includeInactive`.
 */
export async function searchUsers(knex: Knex, part: string, includeInactive: boolean): Promise<UserSearchRow[]> {
  const search = knex('users')
    .leftJoin('groups', 'groups.id', 'users.group_id')
    .where((where) => {
      where.whereILike('users.name', containsPattern(part)).orWhereILike('users.email', containsPattern(part));
    })
    .orderByRaw('case when users.name ilike ? then 0 else 1 end, lower(users.name), users.id', [prefixPattern(part)])
    .limit(USER_SEARCH_LIMIT)
    .select('users.id', 'users.name', 'users.group_id', 'groups.cohort', 'users.email_verified_at', 'users.disabled_at');
  if (!includeInactive) search.whereNotNull('users.email_verified_at').whereNull('users.disabled_at');
  return search;
}

/**
 * The dev server of a student's databases and VPN configuration. They belong together: the VPN
 * configuration reaches that server's MariaDB only. So it is the server of the student's VPN
 * configuration or databases (null rows: the first one), and for a student who has neither yet,
 * the server new students go to (the one of SITE_DOMAIN).
 */
export async function userHomeHost(db: Knex | Knex.Transaction, agents: Pick<AgentFleet, 'link' | 'forNewUsers'>, userId: number): Promise<AgentLink> {
  const vpn = await db('vpn_configs').where({ user_id: userId }).first<{ host: string | null } | undefined>('host');
  if (vpn) return agents.link(vpn.host);
  const database = await db('databases').where({ user_id: userId }).orderBy('id').first<{ host: string | null } | undefined>('host');
  if (database) return agents.link(database.host);
  return agents.forNewUsers;
}

/** The name and the flags that decide a user's host access (applyUserAccess), or undefined. */
export async function accessFlagsOf(knex: Knex, userId: number): Promise<Pick<User, 'name' | 'developer' | 'email_verified_at' | 'disabled_at'> | undefined> {
  return User.query(knex).findById(userId).select('name', 'developer', 'email_verified_at', 'disabled_at');
}
