/** One database of GET/POST/DELETE /api/user/databases (spec §3: id, name, user, password; plus host). */
export interface DatabaseJson {
  id: number;
  /** `u{userId}_{suffix}`. */
  name: string;
  /** The account, named like the database. */
  user: string;
  /** The opened (plain) password: this list only ever goes to the databases' owner. */
  password: string;
  /** Where its MariaDB listens inside the VPN (its dev server's address; beyond the spec). */
  host: string;
}

export interface DatabaseRow {
  id: number;
  name: string;
  db_user: string;
  password_encrypted: string;
}

export function presentDatabase(row: DatabaseRow, password: string, host: string): DatabaseJson {
  return { id: row.id, name: row.name, user: row.db_user, password, host };
}
