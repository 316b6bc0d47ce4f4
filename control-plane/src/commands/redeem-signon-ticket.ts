import type { Knex } from 'knex';
import type { SecretBox } from '../crypto/secret-box.ts';
import { loadDatabaseAccount } from '../queries/databases.ts';
import { readTicket, ticketHashOf } from '../lib/db-admin-ticket.ts';

/** What phpMyAdmin's signon script gets for a valid ticket: one database's account. */
export interface SignonCredentials {
  user: string;
  password: string;
  host: string;
  port: number;
  db: string;
}

/**
 * Redeems a ticket exactly once: the account of its database, or undefined when it is forged,
 * expired or used. Its use is recorded (the SHA-256 of the ticket, in db_admin_signons, kept
 * until it would have expired); the INSERT … ON CONFLICT DO NOTHING decides, also under
 * concurrent redeems. Expired records are swept here.
 */
export async function redeemSignonTicket(
  knex: Knex,
  secrets: SecretBox,
  key: Buffer,
  token: string,
  /** Where the database's server listens, by the database's dev server (its `host` column). */
  serverOf: (host: string | null) => { host: string; port: number },
  now = new Date(),
): Promise<SignonCredentials | undefined> {
  const ticket = readTicket(key, token, now);
  if (!ticket) return undefined;
  const row = await loadDatabaseAccount(knex, ticket.databaseId);
  if (!row) return undefined;
  await knex('db_admin_signons').where('expires_at', '<', now).delete();
  const used = await knex('db_admin_signons')
    .insert({ token_hash: ticketHashOf(token), database_id: ticket.databaseId, expires_at: ticket.expiresAt })
    .onConflict('token_hash')
    .ignore()
    .returning<Array<{ token_hash: string }>>('token_hash');
  if (used.length === 0) return undefined;
  const server = serverOf(row.host);
  return { user: row.db_user, password: secrets.open(row.password_encrypted), host: server.host, port: server.port, db: row.name };
}
