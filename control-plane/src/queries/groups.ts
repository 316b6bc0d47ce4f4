import type { Knex } from 'knex';
import { containsPattern } from '../lib/like-pattern.ts';
import { Group } from '../models/Group.ts';
import type { MemberRow } from './teams.ts';
import { memberQuery } from './users.ts';

type Db = Knex | Knex.Transaction;

export interface GroupRow {
  id: number;
  cohort: string;
  member_count?: string | number;
}

/**
 * Groups by cohort, `search` a case-insensitive "contains"; `withCounts` adds member_count
 * (a correlated count: one query for the levels page's selector and the admin list alike).
 */
export async function listGroups(knex: Knex, search: string | undefined, withCounts: boolean): Promise<GroupRow[]> {
  const query = knex('groups').select('groups.id', 'groups.cohort').orderBy([{ column: 'groups.cohort' }, { column: 'groups.id' }]);
  if (search) query.whereILike('groups.cohort', containsPattern(search));
  if (withCounts) query.select(knex.raw('(select count(*) from users where users.group_id = groups.id) as member_count'));
  return query;
}

/** A group by id (id and cohort), or undefined. */
export async function findGroup(db: Db, id: number): Promise<Group | undefined> {
  return Group.query(db).findById(id).select('id', 'cohort');
}

/** The members of a group with their cohort; by name, then id. */
export async function groupMemberRows(db: Db, groupId: number): Promise<MemberRow[]> {
  return memberQuery(db).where('users.group_id', groupId);
}
