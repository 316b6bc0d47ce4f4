import type { Knex } from 'knex';
import { recordAudit } from '../audit/record-audit.ts';
import { notFound, validationFailed } from '../errors.ts';
import { Team } from '../models/Team.ts';
import { User } from '../models/User.ts';
import { teamMemberRows } from '../queries/teams.ts';
import type { MemberRow } from '../queries/teams.ts';

/**
 * Puts a user in a team or takes them out (`member`, or the opposite of what they are when
 * 'toggle'), with its audit entry (team.add-member / team.remove-member); nothing is written
 * when they already are what was asked. Unknown team → 404; unknown user → 422 on `user`.
 * Answers whether they are a member now and whether that changed. The team is locked, so two
 * changes of the same team run one after the other.
 */
export async function setTeamMember(
  trx: Knex.Transaction,
  actorId: number | null,
  teamId: number,
  userId: number,
  member: boolean | 'toggle',
  reason?: string,
): Promise<{ member: boolean; changed: boolean }> {
  const team = await Team.query(trx).findById(teamId).forUpdate().select('id', 'name');
  if (!team) throw notFound('Dit team bestaat niet.');
  const user = await User.query(trx).findById(userId).select('id', 'name');
  if (!user) throw validationFailed({ user: ['Deze gebruiker bestaat niet.'] });
  const was = (await trx('team_user').where({ team_id: teamId, user_id: userId }).first('user_id')) !== undefined;
  const wanted = member === 'toggle' ? !was : member;
  if (wanted === was) return { member: was, changed: false };
  if (wanted) await team.$relatedQuery('users', trx).relate(userId);
  else await trx('team_user').where({ team_id: teamId, user_id: userId }).delete();
  await recordAudit(trx, {
    actorId,
    action: wanted ? 'team.add-member' : 'team.remove-member',
    subjectType: 'team',
    subjectId: teamId,
    before: { member: was, user_id: userId, user_name: user.name },
    after: { member: wanted, user_id: userId, user_name: user.name, ...(reason ? { reason } : {}) },
  });
  return { member: wanted, changed: true };
}

/**
 * Toggles a user's membership of a team (added if absent, removed if present), with its audit
 * entry (team.add-member / team.remove-member). Unknown team → 404; unknown user → 422 on
 * `user`. Answers the members.
 */
export async function toggleTeamMember(knex: Knex, actorId: number, teamId: number, userId: number): Promise<MemberRow[]> {
  return knex.transaction(async (trx) => {
    await setTeamMember(trx, actorId, teamId, userId, 'toggle');
    return teamMemberRows(trx, teamId);
  });
}
