import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { introduceeGitUsername } from '@devplein/contract/validation/licensesAndIntroducees';
import { recordAudit } from '../audit/record-audit.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import { isUniqueViolation } from '../db/database-errors.ts';
import { HttpError } from '../errors.ts';
import { Introducee } from '../models/Introducee.ts';

/** 20 characters of base64url: 120 random bits, and safe to type or paste anywhere. */
export function generateGitPassword(): string {
  return randomBytes(15).toString('base64url');
}

const nameTaken = (message: string): HttpError => new HttpError(422, message, { errors: { name: [message] } });


/**
 * Creates an introducee ('meeloper') with a new git password, sealed at rest, and its audit
 * entry (introducee.create, never with the password). A name, or the git user it makes, that
 * exists already → 422 on `name`.
 */
export async function createIntroducee(deps: { knex: Knex; secrets: SecretBox; siteDomain: string }, actorId: number, name: string): Promise<Introducee> {
  const gitUsername = introduceeGitUsername(name);
  try {
    return await deps.knex.transaction(async (trx) => {
      // Serialize creations, so the two uniqueness checks below cannot race each other.
      await trx.raw('LOCK TABLE introducees IN SHARE ROW EXCLUSIVE MODE');
      const sameName = await Introducee.query(trx).findOne({ name }).select('id');
      if (sameName) throw nameTaken(`Een meeloper met de naam "${name}" bestaat al.`);
      // Two names differing only in their first three characters would share one git user.
      const sameGitUser = await Introducee.query(trx).whereRaw('substr(name, 4) = ?', [gitUsername]).first().select('name');
      if (sameGitUser) throw nameTaken(`De gitgebruikersnaam "${gitUsername}" bestaat al (meeloper "${String(sameGitUser.name)}").`);
      const created = await Introducee.query(trx).insert({ name, password_encrypted: deps.secrets.seal(generateGitPassword()) });
      // Never the password: the audit log is readable by every admin, forever.
      await recordAudit(trx, {
        actorId,
        action: 'introducee.create',
        subjectType: 'introducee',
        subjectId: created.id,
        after: { name, domain: `${name}.${deps.siteDomain}`, git_username: gitUsername },
      });
      return created;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken(`Een meeloper met de naam "${name}" bestaat al.`);
    throw error;
  }
}
