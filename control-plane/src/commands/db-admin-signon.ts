import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { StoredDatabase } from './user-databases.ts';

/** A ticket lives this long: the browser goes straight from the click to the signon script. */
export const SIGNON_TICKET_TTL_MS = 60_000;

/** What phpMyAdmin's signon script gets for a valid ticket: one database's account. */
export interface SignonCredentials {
  user: string;
  password: string;
  host: string;
  port: number;
  db: string;
}

const hashOf = (token: string): string => createHash('sha256').update(token).digest('hex');

/** Tickets are 32 random bytes, base64url: 43 characters. */
export const TICKET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/**
 * A new one-time ticket for the database's admin sign-on. Expired tickets are swept here too,
 * so the table only ever holds the last minute's clicks.
 */
export async function mintSignonTicket(knex: Knex, database: Pick<StoredDatabase, 'id'>, now = new Date()): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await knex('db_admin_signons').where('expires_at', '<', now).delete();
  await knex('db_admin_signons').insert({
    token_hash: hashOf(token),
    database_id: database.id,
    expires_at: new Date(now.getTime() + SIGNON_TICKET_TTL_MS),
  });
  return token;
}

/**
 * Redeems a ticket exactly once (the DELETE … RETURNING decides, also under concurrent
 * redeems): the account of its database, or undefined when it is unknown, used or expired.
 */
export async function redeemSignonTicket(
  knex: Knex,
  secrets: SecretBox,
  token: string,
  /** Where the database's server listens, by the database's dev server (its `host` column). */
  serverOf: (host: string | null) => { host: string; port: number },
  now = new Date(),
): Promise<SignonCredentials | undefined> {
  if (!TICKET_PATTERN.test(token)) return undefined;
  const [ticket] = await knex('db_admin_signons')
    .where('token_hash', hashOf(token))
    .delete()
    .returning<Array<{ database_id: number; expires_at: Date | string }>>(['database_id', 'expires_at']);
  if (!ticket || new Date(ticket.expires_at).getTime() <= now.getTime()) return undefined;
  const row = await knex('databases')
    .where('id', ticket.database_id)
    .first<{ name: string; db_user: string; password_encrypted: string; host: string | null } | undefined>('name', 'db_user', 'password_encrypted', 'host');
  if (!row) return undefined;
  const server = serverOf(row.host);
  return { user: row.db_user, password: secrets.open(row.password_encrypted), host: server.host, port: server.port, db: row.name };
}

/** The signon script's shared secret, compared in constant time. */
export function isSignonSecret(presented: string | undefined, secret: string): boolean {
  if (!presented) return false;
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(secret).digest();
  return timingSafeEqual(a, b);
}
