import type { Knex } from 'knex';
import { SshKey } from '../models/SshKey.ts';

/** Deletes one of a user's SSH keys (only theirs: the user id is part of the condition). */
export async function deleteSshKey(knex: Knex, userId: number, id: number): Promise<void> {
  await SshKey.query(knex).where({ id, user_id: userId }).delete();
}
