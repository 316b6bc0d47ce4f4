import type { Knex } from 'knex';
import { Database } from '../models/Database.ts';

/** What phpMyAdmin's signon script gets for a valid ticket: one database's account. */
export interface SignonCredentials {
  user: string;
  password: string;
  host: string;
  port: number;
  db: string;
}

/** A stored database as the drop and admin routes load it (then authorize it with ownsDatabase). */
export interface StoredDatabase {
  id: number;
  user_id: number;
  name: string;
  db_user: string;
  /** Its dev server; null is the first one. */
  host: string | null;
}

/** A user's databases with their sealed passwords and dev servers, oldest first. */
export async function loadUserDatabases(knex: Knex, userId: number): Promise<Database[]> {
  return Database.query(knex).select('id', 'name', 'db_user', 'password_encrypted', 'host').where('user_id', userId).orderBy('id');
}

export async function loadDatabase(knex: Knex, id: number): Promise<StoredDatabase | undefined> {
  return Database.query(knex).select('id', 'user_id', 'name', 'db_user', 'host').findById(id);
}

/** The account of one database (sealed password included), for the admin sign-on. */
export async function loadDatabaseAccount(
  knex: Knex,
  id: number,
): Promise<Pick<Database, 'user_id' | 'name' | 'db_user' | 'password_encrypted' | 'host'> | undefined> {
  return Database.query(knex).select('user_id', 'name', 'db_user', 'password_encrypted', 'host').findById(id);
}
