import type { KeyedMutator } from 'swr';
import { addGroupMember as addGroupMemberEndpoint, createGroup as createGroupEndpoint, groupMembers, listGroups, removeGroupMember as removeGroupMemberEndpoint } from '@devplein/contract/http/admin-groups';
import type { GroupJson } from '@devplein/contract/users';
import { call, useEndpoint } from '../endpoints.ts';
import type { Member } from './teams.ts';

/** A group (cohort) with its number of members (GET /api/admin/groups?counts=true). */
export type GroupSummary = GroupJson & { member_count: number };

/** Groups whose cohort contains `search` (case-insensitive), by cohort. */
export function useGroups(search: string): { groups: GroupSummary[] | undefined; error: unknown; isLoading: boolean; mutate: KeyedMutator<GroupSummary[]> } {
  const { data, error, isLoading, mutate } = useEndpoint(listGroups, { query: { search: search.trim(), counts: 'true' } }, { keepPreviousData: true });
  // counts=true: every group carries member_count.
  return { groups: data as GroupSummary[] | undefined, error, isLoading, mutate: mutate as KeyedMutator<GroupSummary[]> };
}

export function useGroupMembers(id: number | null): { members: Member[] | undefined; error: unknown; isLoading: boolean; mutate: KeyedMutator<Member[]> } {
  const { data, error, isLoading, mutate } = useEndpoint(groupMembers, id === null ? null : { params: { id } });
  return { members: data, error, isLoading, mutate };
}

/** Moves the user into this group (out of their old one); answers the members. */
export function addGroupMember(groupId: number, userId: number): Promise<Member[]> {
  return call(addGroupMemberEndpoint, { params: { id: groupId }, body: { user: userId } });
}

/** The user no longer has a group; answers the members. */
export function removeGroupMember(groupId: number, userId: number): Promise<Member[]> {
  return call(removeGroupMemberEndpoint, { params: { id: groupId, userId } });
}

/** A new group; a 422 carries errors.cohort. */
export async function createGroup(cohort: string): Promise<GroupSummary> {
  // A new group has member_count 0.
  return (await call(createGroupEndpoint, { body: { cohort } })) as GroupSummary;
}
