import { searchUsers as searchUsersEndpoint, USER_SEARCH_MAX_LENGTH } from '@devplein/contract/http/user-search';
import type { UserSearchHitJson as UserSearchHit } from '@devplein/contract/users';
import { call } from '../endpoints.ts';
export type { UserSearchHit };

/** The server refuses empty input and longer than this (spec §5: the search only runs for non-empty input). */
export { USER_SEARCH_MAX_LENGTH };

/**
 * People whose name or e-mail holds `part`. `all` (admins only; ignored for others) also finds
 * accounts that are not activated or disabled. Pass an AbortSignal to drop answers of outdated input.
 */
export function searchUsers(part: string, options: { all?: boolean; signal?: AbortSignal } = {}): Promise<UserSearchHit[]> {
  return call(searchUsersEndpoint, { body: { part }, query: { all: options.all ? 'true' : undefined } }, options.signal ? { signal: options.signal } : {});
}
