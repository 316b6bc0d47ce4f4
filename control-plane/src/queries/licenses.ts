import type { Knex } from 'knex';
import { License } from '../models/License.ts';

/** A licences row joined with its holder's name, as the routes load it. */
export interface LicenseRow {
  id: number;
  user_id: number;
  description: string;
  license: string;
  approved_at: Date | string | null;
  created_at: Date | string;
  user_name: string;
}

type Db = Knex | Knex.Transaction;

/** Licences joined with their holder's name, newest first (one join, the admin list's query). */
function licenseRows(db: Db): Knex.QueryBuilder<LicenseRow, LicenseRow[]> {
  return db<LicenseRow, LicenseRow[]>('licenses as l')
    .join('users as u', 'u.id', 'l.user_id')
    .select('l.id', 'l.user_id', 'l.description', 'l.license', 'l.approved_at', 'l.created_at', 'u.name as user_name')
    .orderBy([
      { column: 'l.created_at', order: 'desc' },
      { column: 'l.id', order: 'desc' },
    ]);
}

/** Every licence request (the admin list). */
export async function allLicenseRows(knex: Knex): Promise<LicenseRow[]> {
  return licenseRows(knex);
}

/** A user's own licence requests. */
export async function licenseRowsOf(knex: Knex, userId: number): Promise<LicenseRow[]> {
  return licenseRows(knex).where('l.user_id', userId);
}

/** One licence with its holder's name, or undefined. */
export async function licenseRow(db: Db, id: number): Promise<LicenseRow | undefined> {
  return licenseRows(db).where('l.id', id).first();
}

/** A licence's owner and state (for the owner check), or undefined. */
export async function findLicense(knex: Knex, id: number): Promise<Pick<License, 'id' | 'user_id' | 'approved_at'> | undefined> {
  return License.query(knex).findById(id).select('id', 'user_id', 'approved_at');
}
