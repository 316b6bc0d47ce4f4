import type { Knex } from 'knex';

/** The signed-in user as every policy sees it: flags, group and teams (ordered by team id). */
export interface CurrentUser {
  id: number;
  name: string;
  name_slug: string;
  email: string;
  email_verified_at: Date | null;
  disabled_at: Date | null;
  admin: boolean;
  developer: boolean;
  group: { id: number; cohort: string } | null;
  teams: { id: number; name: string }[];
}

interface UserRow {
  id: number;
  name: string;
  name_slug: string;
  email: string;
  email_verified_at: Date | string | null;
  disabled_at: Date | string | null;
  admin: boolean;
  developer: boolean;
  group_id: number | null;
  cohort: string | null;
  teams: { id: number; name: string }[] | string | null;
}

const toDate = (value: Date | string | null): Date | null =>
  value === null ? null : value instanceof Date ? value : new Date(value);

/** Loads a user with group and teams in one query (this runs on every signed-in request). */
export async function loadCurrentUser(knex: Knex, userId: number): Promise<CurrentUser | null> {
  const row = await knex('users as u')
    .leftJoin('groups as g', 'g.id', 'u.group_id')
    .select(
      'u.id',
      'u.name',
      'u.name_slug',
      'u.email',
      'u.email_verified_at',
      'u.disabled_at',
      'u.admin',
      'u.developer',
      'u.group_id',
      'g.cohort',
      knex.raw(
        `coalesce((select json_agg(json_build_object('id', t.id, 'name', t.name) order by t.id)
           from team_user tu join teams t on t.id = tu.team_id where tu.user_id = u.id), '[]'::json) as teams`,
      ),
    )
    .where('u.id', userId)
    .first<UserRow | undefined>();
  if (!row) return null;
  const teams = typeof row.teams === 'string' ? (JSON.parse(row.teams) as CurrentUser['teams']) : (row.teams ?? []);
  return {
    id: row.id,
    name: row.name,
    name_slug: row.name_slug,
    email: row.email,
    email_verified_at: toDate(row.email_verified_at),
    disabled_at: toDate(row.disabled_at),
    admin: Boolean(row.admin),
    developer: Boolean(row.developer),
    group: row.group_id !== null && row.cohort !== null ? { id: row.group_id, cohort: row.cohort } : null,
    teams: teams.map((team) => ({ id: Number(team.id), name: team.name })),
  };
}
