import useSWR, { type KeyedMutator } from 'swr';
import { api, apiFetcher } from '../client.ts';
import type { Member } from './teams.ts';
import type { GroupJson } from '@devplein/contract/users';

/** A group (cohort) with its number of members (GET /api/admin/groups?counts=true). */
export type GroupSummary = GroupJson & { member_count: number };

export const GROUPS_PATH = '/api/admin/groups';
export const groupKey = (id: number): string => `${GROUPS_PATH}/${id}`;
const groupsKey = (search: string): string => `${GROUPS_PATH}?${new URLSearchParams({ search, counts: 'true' }).toString()}`;

/** Groups whose cohort contains `search` (case-insensitive), by cohort. */
export function useGroups(search: string): { groups: GroupSummary[] | undefined; error: unknown; isLoading: boolean; mutate: KeyedMutator<GroupSummary[]> } {
  const { data, error, isLoading, mutate } = useSWR<GroupSummary[]>(groupsKey(search.trim()), apiFetcher<GroupSummary[]>, { keepPreviousData: true });
  return { groups: data, error, isLoading, mutate };
}

export function useGroupMembers(id: number | null): { members: Member[] | undefined; error: unknown; isLoading: boolean; mutate: KeyedMutator<Member[]> } {
  const { data, error, isLoading, mutate } = useSWR<Member[]>(id === null ? null : groupKey(id), apiFetcher<Member[]>);
  return { members: data, error, isLoading, mutate };
}

/** PUT /api/admin/groups/{id} {user}: moves the user into this group (out of their old one); answers the members. */
export function addGroupMember(groupId: number, userId: number): Promise<Member[]> {
  return api.put<Member[]>(groupKey(groupId), { user: userId });
}

/** DELETE /api/admin/groups/{id}/users/{userId}: the user no longer has a group; answers the members. */
export function removeGroupMember(groupId: number, userId: number): Promise<Member[]> {
  return api.delete<Member[]>(`${groupKey(groupId)}/users/${userId}`);
}

/** POST /api/admin/groups {cohort}: a 422 carries errors.cohort. */
export function createGroup(cohort: string): Promise<GroupSummary> {
  return api.post<GroupSummary>(GROUPS_PATH, { cohort });
}
