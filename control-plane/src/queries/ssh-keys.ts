import type { Knex } from 'knex';
import { SshKey } from '../models/SshKey.ts';

/** A user's SSH keys, oldest first. */
export async function sshKeysOf(knex: Knex, userId: number): Promise<SshKey[]> {
  return SshKey.query(knex).select('id', 'name', 'public_key', 'fingerprint', 'created_at').where('user_id', userId).orderBy('id');
}

/** A key's owner (for the owner check), or undefined. */
export async function findSshKey(knex: Knex, id: number): Promise<Pick<SshKey, 'id' | 'user_id'> | undefined> {
  return SshKey.query(knex).findById(id).select('id', 'user_id');
}
