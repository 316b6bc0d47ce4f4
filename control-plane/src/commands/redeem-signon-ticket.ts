import type { Knex } from 'knex';
import type { SecretBox } from '../crypto/secret-box.ts';
import { loadCurrentUser } from '../queries/current-user.ts';
import { mayUseDatabases, ownsDatabase } from '../policies/database-policy.ts';
import { loadDatabaseAccount } from '../queries/databases.ts';
import { readTicket, ticketHashOf } from '../lib/db-admin-ticket.ts';
import type { SignonCredentials } from '../queries/databases.ts';

/** Whether the user still has the live session (sign-in) that made the ticket. */
async function hasLiveSignIn(knex: Knex, userId: number, signedInAt: number, now: Date): Promise<boolean> {
  const rows = await knex('sessions').select('data').where({ user_id: userId }).andWhere('expires_at', '>', now);
  return rows.some((row: { data: { signedInAt?: unknown } | string }) => {
    const data = typeof row.data === 'string' ? (JSON.parse(row.data) as { signedInAt?: unknown }) : row.data;
    return data.signedInAt === signedInAt;
  });
}

/**
 * Redeems a ticket exactly once, with the browser `state` it was made for: the account of its
 * database, or undefined when it is forged, expired, used, presented with another browser's
 * state, or when the situation it was made in no longer holds — its owner is again checked to
 * be an active developer who owns the database, still signed in with the session that asked.
 * Its use is recorded (the SHA-256 of the ticket, in db_admin_signons, kept until it would have
 * expired); the INSERT … ON CONFLICT DO NOTHING decides, also under concurrent redeems. Expired
 * records are swept here.
 */
export async function redeemSignonTicket(
  knex: Knex,
  secrets: SecretBox,
  key: Buffer,
  presented: { token: string; state: string },
  /** Where the database's server listens, by the database's dev server (its `host` column). */
  serverOf: (host: string | null) => { host: string; port: number },
  now = new Date(),
): Promise<SignonCredentials | undefined> {
  const ticket = readTicket(key, presented.token, presented.state, now);
  if (!ticket) return undefined;
  const row = await loadDatabaseAccount(knex, ticket.databaseId);
  if (!row) return undefined;
  // Not the identity cache: this is the moment of sign-in, read the user as the database has it.
  const owner = await loadCurrentUser(knex, ticket.userId);
  if (!owner || !mayUseDatabases(owner) || !ownsDatabase(owner, row)) return undefined;
  if (!(await hasLiveSignIn(knex, owner.id, ticket.signedInAt, now))) return undefined;
  await knex('db_admin_signons').where('expires_at', '<', now).delete();
  const used = await knex('db_admin_signons')
    .insert({ token_hash: ticketHashOf(presented.token), database_id: ticket.databaseId, expires_at: ticket.expiresAt })
    .onConflict('token_hash')
    .ignore()
    .returning<Array<{ token_hash: string }>>('token_hash');
  if (used.length === 0) return undefined;
  const server = serverOf(row.host);
  return { user: row.db_user, password: secrets.open(row.password_encrypted), host: server.host, port: server.port, db: row.name };
}
