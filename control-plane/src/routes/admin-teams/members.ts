import type { Knex } from 'knex';
import { presentMember, type MemberJson, type MemberRow } from '../../presenters/present-team.ts';

/** Users with their cohort, for the member lists of teams and groups; by name, then id. */
export function memberQuery(db: Knex | Knex.Transaction): Knex.QueryBuilder {
  return db('users')
    .leftJoin('groups', 'groups.id', 'users.group_id')
    .select('users.id', 'users.name', 'users.email', 'users.group_id', 'groups.cohort')
    .orderByRaw('lower(users.name), users.id');
}

export async function teamMembers(db: Knex | Knex.Transaction, teamId: number): Promise<MemberJson[]> {
  const rows: MemberRow[] = await memberQuery(db).join('team_user', 'team_user.user_id', 'users.id').where('team_user.team_id', teamId);
  return rows.map(presentMember);
}

export async function groupMembers(db: Knex | Knex.Transaction, groupId: number): Promise<MemberJson[]> {
  const rows: MemberRow[] = await memberQuery(db).where('users.group_id', groupId);
  return rows.map(presentMember);
}
