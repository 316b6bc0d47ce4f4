import type { KeyedMutator } from 'swr';
import { createDatabase as createDatabaseEndpoint, dropDatabase as dropDatabaseEndpoint, listDatabases } from '@devplein/contract/http/databases';
import { databaseAdminLink } from '@devplein/contract/http/db-admin';
import { pathOf } from '@devplein/contract/http/endpoint';
import type { DatabaseJson } from '@devplein/contract/access';
import { call, keyOf, useEndpoint } from '../endpoints.ts';

/** One database of the list. */
export type UserDatabase = DatabaseJson;

export const DATABASES_KEY = keyOf(listDatabases, {})!;

export interface DatabasesQuery {
  databases: UserDatabase[] | undefined;
  error: unknown;
  mutate: KeyedMutator<UserDatabase[]>;
}

/**
 * The signed-in developer's databases. `enabled` false (not a developer) asks nothing: the server
 * would answer 403, and the API client sends the browser home on a 403.
 */
export function useDatabases(enabled = true): DatabasesQuery {
  const { data, error, mutate } = useEndpoint(listDatabases, enabled ? {} : null);
  return { databases: data, error, mutate };
}

/**
 * Creates `u{id}_{db}` and its account; answers the updated list.
 * 422 carries errors.db (spec §8), 503 when the database server does not answer, 501 when the
 * dev server does not support databases yet.
 */
export function createDatabase(db: string): Promise<UserDatabase[]> {
  return call(createDatabaseEndpoint, { body: { db } });
}

/** Drops database and account; answers the updated list. */
export function dropDatabase(id: number): Promise<UserDatabase[]> {
  return call(dropDatabaseEndpoint, { params: { id } });
}

/**
 * The database administration link of spec §2: `{adminUrl}?db={name}&link=true` (phpMyAdmin on an
 * origin of its own, opened in a new tab without a Referer). With the phpMyAdmin sign-on on (meta
 * db-admin-signon), the control plane's admin route instead: it sends the browser to the sign-on
 * page on phpMyAdmin's origin, which gets a ticket bound to this browser, signs the student in
 * and lands on that same address. The route knows each database's dev server, so the page does not.
 */
export function databaseAdminHref(adminUrl: string, database: Pick<UserDatabase, 'id' | 'name'>, signon = false): string {
  if (signon) return pathOf(databaseAdminLink, { id: database.id });
  const separator = adminUrl.includes('?') ? '&' : '?';
  return `${adminUrl}${separator}db=${encodeURIComponent(database.name)}&link=true`;
}
