import type { Knex } from 'knex';

/** The session data we keep; koa-session adds its own `_expire`/`_maxAge` keys. */
export interface SessionData {
  userId?: number;
  csrf?: string;
  [key: string]: unknown;
}

/**
 * koa-session external store on the `sessions` table. The user id is a column of its own so that
 * disabling a user can delete all of that user's sessions at once (signed out everywhere).
 */
export function createSessionStore(knex: Knex) {
  return {
    async get(key: string): Promise<SessionData | undefined> {
      const row = await knex('sessions')
        .select('data')
        .where({ id: key })
        .andWhere('expires_at', '>', knex.fn.now())
        .first<{ data: SessionData | string } | undefined>();
      if (!row) return undefined;
      return typeof row.data === 'string' ? (JSON.parse(row.data) as SessionData) : row.data;
    },
    async set(key: string, data: SessionData, maxAge: number): Promise<void> {
      const ttl = typeof maxAge === 'number' && Number.isFinite(maxAge) ? maxAge : 24 * 3600_000;
      const expiresAt = new Date(Date.now() + ttl);
      const userId = typeof data.userId === 'number' ? data.userId : null;
      await knex('sessions')
        .insert({ id: key, user_id: userId, data: JSON.stringify(data), expires_at: expiresAt })
        .onConflict('id')
        .merge(['user_id', 'data', 'expires_at']);
    },
    async destroy(key: string): Promise<void> {
      await knex('sessions').where({ id: key }).delete();
    },
  };
}

/** Ends every session of a user (disable, delete). */
export async function destroySessionsOfUser(knex: Knex, userId: number): Promise<number> {
  return knex('sessions').where({ user_id: userId }).delete();
}

/** Removes expired rows; run on a timer. */
export async function pruneExpiredSessions(knex: Knex): Promise<number> {
  return knex('sessions').where('expires_at', '<=', knex.fn.now()).delete();
}
