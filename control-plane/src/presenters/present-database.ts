import type { DatabaseJson } from '@devplein/contract/access';
export type { DatabaseJson };


export interface DatabaseRow {
  id: number;
  name: string;
  db_user: string;
  password_encrypted: string;
}

/** Where students reach a dev server's MariaDB. */
export interface StudentDbServer {
  host: string;
  port: number;
}

export function presentDatabase(row: DatabaseRow, password: string, server: StudentDbServer): DatabaseJson {
  return { id: row.id, name: row.name, user: row.db_user, password, host: server.host, port: server.port };
}

/**
 * The owner's databases with their passwords opened (this list only ever goes to its owner) and
 * their server's address, as every database call answers them.
 */
export function presentUserDatabases(
  rows: ReadonlyArray<DatabaseRow & { host: string | null }>,
  openPassword: (sealed: string) => string,
  serverOf: (host: string | null) => StudentDbServer,
): DatabaseJson[] {
  return rows.map((row) => presentDatabase(row, openPassword(row.password_encrypted), serverOf(row.host)));
}
