import type { Knex } from 'knex';
import { HttpError } from '../errors.ts';
import { License } from '../models/License.ts';
import { User } from '../models/User.ts';
import { MAX_PENDING_LICENSES_PER_USER } from '../policies/license-policy.ts';

/**
 * Stores a licence request of a user. At most MAX_PENDING_LICENSES_PER_USER pending at once:
 * one more → 422 on `license`.
 */
export async function requestLicense(knex: Knex, userId: number, input: { description: string; license: string }): Promise<void> {
  await knex.transaction(async (trx) => {
    // Lock the user's row so two requests at once cannot pass the limit together.
    await User.query(trx).findById(userId).forUpdate().select('id');
    const pending = await License.query(trx).where('user_id', userId).whereNull('approved_at').resultSize();
    if (pending >= MAX_PENDING_LICENSES_PER_USER) {
      const message = `Je hebt al ${MAX_PENDING_LICENSES_PER_USER} aanvragen in behandeling. Wacht tot een docent ze heeft bekeken.`;
      throw new HttpError(422, message, { errors: { license: [message] } });
    }
    await License.query(trx).insert({ user_id: userId, description: input.description, license: input.license });
  });
}
