import type { Knex } from 'knex';
import { Team } from '../models/Team.ts';
import { memberQuery } from './users.ts';

export interface MemberRow {
  id: number;
  name: string;
  email: string;
  group_id: number | null;
  cohort: string | null;
}

type Db = Knex | Knex.Transaction;

/** Every team with its member count, by id (one grouped join). */
export async function teamSummaries(knex: Knex): Promise<Array<{ id: number; name: string; member_count: string | number }>> {
  return knex('teams')
    .leftJoin('team_user', 'team_user.team_id', 'teams.id')
    .groupBy('teams.id', 'teams.name')
    .orderBy('teams.id')
    .select<Array<{ id: number; name: string; member_count: string }>>('teams.id', 'teams.name', knex.raw('count(team_user.user_id) as member_count'));
}

/** A team by id (id and name), or undefined. */
export async function findTeam(db: Db, id: number): Promise<Team | undefined> {
  return Team.query(db).findById(id).select('id', 'name');
}

/** The members of a team with their cohort; by name, then id. */
export async function teamMemberRows(db: Db, teamId: number): Promise<MemberRow[]> {
  return memberQuery(db).join('team_user', 'team_user.user_id', 'users.id').where('team_user.team_id', teamId);
}
