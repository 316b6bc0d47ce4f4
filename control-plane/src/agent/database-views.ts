import type { AccountLock, Database } from '@devplein/proto/database';

/**
 * Plain views of what the agent answers about student databases. Routes, commands and presenters
 * only ever see these: no proto message leaves the agent module.
 */

/** A database and its account on the dev server's MySQL/MariaDB. */
export interface DatabaseView {
  name: string;
  user: string;
}

/** What CreateDatabase asks for; `ownerUserId` is for the agent's log only. */
export interface CreateDatabaseInput {
  name: string;
  user: string;
  ownerUserId: number;
}

/** CreateDatabase's answer: the password is returned this once (the agent keeps no copy). */
export interface CreatedDatabaseView {
  database: DatabaseView;
  password: string;
}

export interface DroppedDatabaseView {
  databaseDropped: boolean;
  userDropped: boolean;
}

export function databaseView(database: Database | undefined, fallback: DatabaseView): DatabaseView {
  return database ? { name: database.name, user: database.user } : { ...fallback };
}

/** What LockAccounts or UnlockAccounts did to one account. */
export interface AccountLockView {
  user: string;
  /** False: the account does not exist on the dev server. */
  found: boolean;
  /** Open connections ended (lock only). */
  killedConnections: number;
}

export const accountLockView = (account: AccountLock): AccountLockView => ({ user: account.user, found: account.found, killedConnections: account.killedConnections });
