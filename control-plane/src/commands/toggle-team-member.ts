import type { Knex } from 'knex';
import { recordAudit } from '../audit/record-audit.ts';
import { notFound, validationFailed } from '../errors.ts';
import { Team } from '../models/Team.ts';
import { User } from '../models/User.ts';
import { teamMemberRows } from '../queries/teams.ts';
import type { MemberRow } from '../presenters/present-team.ts';

/**
 * Toggles a user's membership of a team (added if absent, removed if present), with its audit
 * entry (team.add-member / team.remove-member). Unknown team → 404; unknown user → 422 on
 * `user`. Answers the members.
 */
export async function toggleTeamMember(knex: Knex, actorId: number, teamId: number, userId: number): Promise<MemberRow[]> {
  return knex.transaction(async (trx) => {
    // Locked, so two toggles of the same team run one after the other.
    const team = await Team.query(trx).findById(teamId).forUpdate().select('id', 'name');
    if (!team) throw notFound('Dit team bestaat niet.');
    const member = await User.query(trx).findById(userId).select('id', 'name');
    if (!member) throw validationFailed({ user: ['Deze gebruiker bestaat niet.'] });
    const removed = await trx('team_user').where({ team_id: teamId, user_id: userId }).delete();
    if (removed === 0) await team.$relatedQuery('users', trx).relate(userId);
    await recordAudit(trx, {
      actorId,
      action: removed === 0 ? 'team.add-member' : 'team.remove-member',
      subjectType: 'team',
      subjectId: teamId,
      before: { member: removed !== 0, user_id: userId, user_name: member.name },
      after: { member: removed === 0, user_id: userId, user_name: member.name },
    });
    return teamMemberRows(trx, teamId);
  });
}
