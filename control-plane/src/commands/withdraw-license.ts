import type { Knex } from 'knex';
import { License } from '../models/License.ts';

/**
 * Deletes a user's licence request while it is still pending (an approval that lands in between
 * wins). Answers how many rows went: 0 when it was approved meanwhile.
 */
export async function withdrawLicense(knex: Knex, userId: number, id: number): Promise<number> {
  return License.query(knex).where({ id, user_id: userId }).whereNull('approved_at').delete();
}
