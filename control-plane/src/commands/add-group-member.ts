import type { Knex } from 'knex';
import { recordAudit } from '../audit/record-audit.ts';
import { notFound, validationFailed } from '../errors.ts';
import { User } from '../models/User.ts';
import { findGroup, groupMemberRows } from '../queries/groups.ts';
import type { MemberRow } from '../queries/teams.ts';

/**
 * Puts a user in a group, moving them out of their old one (a user has at most one group).
 * Audit group.add-member with the group before and after; nothing is written when they are
 * already in it. Unknown group → 404; unknown user → 422 on `user`. Answers the members.
 * The group sync at sign-in (sync-identity-groups.ts) calls it without actor and with a reason.
 */
export async function addGroupMember(knex: Knex, actorId: number | null, groupId: number, userId: number, reason?: string): Promise<MemberRow[]> {
  return knex.transaction(async (trx) => {
    const group = await findGroup(trx, groupId);
    if (!group) throw notFound('Deze groep bestaat niet.');
    const member = await trx('users')
      .leftJoin('groups', 'groups.id', 'users.group_id')
      .where('users.id', userId)
      .forUpdate('users')
      .first<{ id: number; name: string; group_id: number | null; cohort: string | null } | undefined>('users.id', 'users.name', 'users.group_id', 'groups.cohort');
    if (!member) throw validationFailed({ user: ['Deze gebruiker bestaat niet.'] });
    if (member.group_id !== groupId) {
      // Through the model: its hook sets updated_at.
      await User.query(trx).findById(userId).patch({ group_id: groupId });
      await recordAudit(trx, {
        actorId,
        action: 'group.add-member',
        subjectType: 'group',
        subjectId: groupId,
        before: { user_id: userId, user_name: member.name, group_id: member.group_id, cohort: member.cohort },
        after: { user_id: userId, user_name: member.name, group_id: groupId, cohort: group.cohort, ...(reason ? { reason } : {}) },
      });
    }
    return groupMemberRows(trx, groupId);
  });
}
