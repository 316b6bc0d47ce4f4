import type { Knex } from 'knex';
import { Session } from '../models/Session.ts';

/** Ends every session of a user (disable, delete). */
export async function destroySessionsOfUser(knex: Knex, userId: number): Promise<number> {
  return Session.query(knex).where({ user_id: userId }).delete();
}

/** Removes expired rows; run on a timer. */
export async function pruneExpiredSessions(knex: Knex): Promise<number> {
  return Session.query(knex).where('expires_at', '<=', knex.fn.now()).delete();
}
