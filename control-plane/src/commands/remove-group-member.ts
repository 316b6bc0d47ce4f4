import type { Knex } from 'knex';
import { recordAudit } from '../audit/record-audit.ts';
import { notFound } from '../errors.ts';
import { User } from '../models/User.ts';
import { findGroup, groupMemberRows } from '../queries/groups.ts';
import type { MemberRow } from '../queries/teams.ts';

/**
 * Takes a user out of a group (their group becomes none), with its audit entry
 * (group.remove-member). Unknown group, or a user not in it → 404. Answers the members left.
 * The group sync at sign-in (sync-identity-groups.ts) calls it without actor and with a reason.
 */
export async function removeGroupMember(knex: Knex, actorId: number | null, groupId: number, userId: number, reason?: string): Promise<MemberRow[]> {
  return knex.transaction(async (trx) => {
    const group = await findGroup(trx, groupId);
    if (!group) throw notFound('Deze groep bestaat niet.');
    const member = await User.query(trx).findOne({ id: userId, group_id: groupId }).forUpdate().select('id', 'name');
    if (!member) throw notFound('Deze gebruiker zit niet in deze groep.');
    // Through the model: its hook sets updated_at.
    await User.query(trx).findById(userId).patch({ group_id: null });
    await recordAudit(trx, {
      actorId,
      action: 'group.remove-member',
      subjectType: 'group',
      subjectId: groupId,
      before: { user_id: userId, user_name: member.name, group_id: groupId, cohort: group.cohort },
      after: { user_id: userId, user_name: member.name, group_id: null, cohort: null, ...(reason ? { reason } : {}) },
    });
    return groupMemberRows(trx, groupId);
  });
}
