import type { Knex } from 'knex';
import { Introducee } from '../models/Introducee.ts';

/** Every introducee ('meeloper') by name, with the sealed git password. */
export async function listIntroducees(knex: Knex): Promise<Introducee[]> {
  return Introducee.query(knex).select('id', 'name', 'password_encrypted', 'created_at').orderBy('name');
}
