import type { KeyedMutator } from 'swr';
import { changeUserState as changeUserStateEndpoint, deleteAdminUser, listAdminUsers, setDeveloperFlag, type UserAction } from '@devplein/contract/http/admin-users';
import type { AdminUserJson as AdminUser } from '@devplein/contract/users';
import { call, useEndpoint } from '../endpoints.ts';
export type { AdminUser, UserAction };

/*
 * The users admin (spec §2 Users, §4 user activation, §7 admin calls): swr key, fetcher,
 * mutations and the page's filter. Every call is admin-only on the server.
 */

/** Value of the cohort select that means "users without a group" (the word the table shows). */
export const NO_GROUP = 'geen';

export interface AdminUsersQuery {
  users: AdminUser[] | undefined;
  error: unknown;
  isLoading: boolean;
  mutate: KeyedMutator<AdminUser[]>;
}

/** Every user, once: the page filters them itself, so typing never waits for the server. */
export function useAdminUsers(): AdminUsersQuery {
  const { data, error, isLoading, mutate } = useEndpoint(listAdminUsers, {});
  return { users: data, error, isLoading, mutate };
}

/** verify or disable: answers the updated user. */
export function changeUserState(id: number, action: UserAction): Promise<AdminUser> {
  return call(changeUserStateEndpoint, { params: { id }, query: { action } });
}

/** Sets or clears the developer flag; answers the updated user. */
export function setDeveloper(id: number, developer: boolean): Promise<AdminUser> {
  return call(setDeveloperFlag, { params: { id }, body: { developer } });
}

/**
 * Deletes a user: undefined (204), or a message when something of it is left for later (an
 * agent too old to end SSH sessions); a 503 says what is left on which dev server.
 */
export function deleteUser(id: number): Promise<{ message: string } | undefined> {
  return call(deleteAdminUser, { params: { id } });
}

/** Active: activated and not disabled. The row offers Disable; otherwise Activeer. */
export const isActiveUser = (user: AdminUser): boolean => user.email_verified_at !== null && user.disabled_at === null;

/** The cohort the table shows: the group's cohort or 'geen'. */
export const cohortLabel = (user: AdminUser): string => user.group?.cohort ?? NO_GROUP;

export interface UserFilter {
  /** Part of the name; case and accents do not matter. */
  name: string;
  /** '' for every cohort, a cohort such as 'SD22', or NO_GROUP. */
  cohort: string;
  /** The 'Niet geactiveerd' checkbox: on lists users without verification date, off the verified ones. */
  notActivated: boolean;
}

/** Lowercase without accents, so 'zoe' finds 'Zoë' and 'chloe' finds 'Chloé'. */
export function searchText(text: string): string {
  return text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().trim();
}

/** A user with the search text of their name computed once, not on every keystroke. */
export interface IndexedUser {
  user: AdminUser;
  nameKey: string;
}

const byName = new Intl.Collator('nl', { sensitivity: 'base', numeric: true });

/** The users sorted by name as a Dutch reader expects ('import' between 'Iris' and 'Jesse'), with their search text. */
export function indexUsers(users: readonly AdminUser[]): IndexedUser[] {
  return users
    .map((user) => ({ user, nameKey: searchText(user.name) }))
    .sort((a, b) => byName.compare(a.user.name, b.user.name) || a.user.id - b.user.id);
}

/** The rows spec §2 shows for the three filters. */
export function filterUsers(users: readonly IndexedUser[], filter: UserFilter): AdminUser[] {
  const name = searchText(filter.name);
  const result: AdminUser[] = [];
  for (const { user, nameKey } of users) {
    if ((user.email_verified_at === null) !== filter.notActivated) continue;
    if (filter.cohort !== '' && cohortLabel(user) !== filter.cohort) continue;
    if (name !== '' && !nameKey.includes(name)) continue;
    result.push(user);
  }
  return result;
}

/** The cohorts of the select, sorted; 'geen' is offered separately. */
export function cohortsOf(users: readonly AdminUser[]): string[] {
  const cohorts = new Set<string>();
  for (const user of users) if (user.group) cohorts.add(user.group.cohort);
  return [...cohorts].sort((a, b) => a.localeCompare(b, 'nl'));
}
