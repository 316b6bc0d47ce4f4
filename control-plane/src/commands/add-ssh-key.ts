import type { Knex } from 'knex';
import { DUPLICATE_SSH_KEY_MESSAGE } from '@devplein/contract/validation/sshKeyFormat';
import { isUniqueViolation } from '../db/database-errors.ts';
import { HttpError } from '../errors.ts';
import { SshKey } from '../models/SshKey.ts';
import { User } from '../models/User.ts';
import { MAX_SSH_KEYS_PER_USER } from '../policies/ssh-key-policy.ts';

/** A 422 about the key field, with the message the form shows as-is. */
export const sshKeyRefused = (message: string): HttpError => new HttpError(422, message, { errors: { sshKey: [message] } });


/**
 * Stores a parsed public key for a user. A key stored before (by anyone: the fingerprint is
 * unique) or one over MAX_SSH_KEYS_PER_USER → 422 on `sshKey`.
 */
export async function addSshKey(knex: Knex, userId: number, key: { name: string; publicKey: string; fingerprint: string }): Promise<void> {
  try {
    await knex.transaction(async (trx) => {
      // One key belongs to one account: a key someone else stored is refused the same way.
      const existing = await SshKey.query(trx).findOne({ fingerprint: key.fingerprint }).select('id');
      if (existing) throw sshKeyRefused(DUPLICATE_SSH_KEY_MESSAGE);
      // Lock the user's row so two uploads at once cannot pass the limit together.
      await User.query(trx).findById(userId).forUpdate().select('id');
      const count = await SshKey.query(trx).where('user_id', userId).resultSize();
      if (count >= MAX_SSH_KEYS_PER_USER) {
        throw sshKeyRefused(`Je kunt maximaal ${MAX_SSH_KEYS_PER_USER} SSH keys opslaan. Verwijder eerst een oude key.`);
      }
      await SshKey.query(trx).insert({ user_id: userId, name: key.name, public_key: key.publicKey, fingerprint: key.fingerprint });
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw sshKeyRefused(DUPLICATE_SSH_KEY_MESSAGE);
    throw error;
  }
}
