import { api } from '../client.ts';
import type { UserSearchHitJson as UserSearchHit } from '@devplein/contract/users';
export type { UserSearchHit };

/** The server refuses empty input and longer than this (spec §5: the search only runs for non-empty input). */
export const USER_SEARCH_MAX_LENGTH = 100;

/**
 * POST /api/users/search {part}. `all` (admins only; ignored for others) also finds accounts that
 * are not activated or disabled. Pass an AbortSignal to drop answers of outdated input.
 */
export function searchUsers(part: string, options: { all?: boolean; signal?: AbortSignal } = {}): Promise<UserSearchHit[]> {
  return api.post<UserSearchHit[]>('/api/users/search', { part }, { query: { all: options.all ? 'true' : undefined }, signal: options.signal });
}
