import type { DatabaseJson } from '@devplein/contract/access';
export type { DatabaseJson };


export interface DatabaseRow {
  id: number;
  name: string;
  db_user: string;
  password_encrypted: string;
}

export function presentDatabase(row: DatabaseRow, password: string, host: string): DatabaseJson {
  return { id: row.id, name: row.name, user: row.db_user, password, host };
}
