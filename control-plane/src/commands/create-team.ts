import type { Knex } from 'knex';
import { recordAudit } from '../audit/record-audit.ts';
import { validationFailed } from '../errors.ts';
import { Team } from '../models/Team.ts';

/**
 * Creates a team with its audit entry (team.create). A name that exists (case-insensitively)
 * → 422 on `name`. Answers the new team.
 */
export async function createTeam(knex: Knex, actorId: number | null, name: string): Promise<{ id: number; name: string }> {
  return knex.transaction(async (trx) => {
    // Serialises team creation, so two admins cannot both create the same name.
    await trx.raw('LOCK TABLE teams IN SHARE ROW EXCLUSIVE MODE');
    const existing = await Team.query(trx).whereRaw('lower(name) = lower(?)', [name]).first().select('id');
    if (existing) throw validationFailed({ name: ['Er bestaat al een team met deze naam.'] });
    const team = await Team.query(trx).insert({ name });
    await recordAudit(trx, { actorId, action: 'team.create', subjectType: 'team', subjectId: team.id, after: { name: team.name } });
    return { id: team.id, name: team.name };
  });
}
