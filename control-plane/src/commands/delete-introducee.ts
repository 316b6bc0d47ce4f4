import type { Knex } from 'knex';
import { introduceeGitUsername } from '@devplein/contract/validation/licensesAndIntroducees';
import { recordAudit } from '../audit/record-audit.ts';
import { notFound } from '../errors.ts';
import { Introducee } from '../models/Introducee.ts';

/** Deletes an introducee with its audit entry (introducee.delete). Unknown id → 404. */
export async function deleteIntroducee(deps: { knex: Knex; siteDomain: string }, actorId: number, id: number): Promise<void> {
  await deps.knex.transaction(async (trx) => {
    const existing = await Introducee.query(trx).findById(id).forUpdate().select('id', 'name');
    if (!existing) throw notFound('Deze meeloper bestaat niet.');
    await Introducee.query(trx).deleteById(id);
    await recordAudit(trx, {
      actorId,
      action: 'introducee.delete',
      subjectType: 'introducee',
      subjectId: id,
      before: { name: existing.name, domain: `${existing.name}.${deps.siteDomain}`, git_username: introduceeGitUsername(existing.name) },
    });
  });
}
