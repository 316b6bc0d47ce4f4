import useSWR, { type KeyedMutator } from 'swr';
import { api, apiFetcher } from '../client.ts';
import type { TeamSummaryJson as TeamSummary, MemberJson as Member } from '@devplein/contract/users';
export type { TeamSummary, Member };

export const TEAMS_KEY = '/api/admin/teams';
export const teamKey = (id: number): string => `${TEAMS_KEY}/${id}`;

export function useTeams(): { teams: TeamSummary[] | undefined; error: unknown; isLoading: boolean; mutate: KeyedMutator<TeamSummary[]> } {
  const { data, error, isLoading, mutate } = useSWR<TeamSummary[]>(TEAMS_KEY, apiFetcher<TeamSummary[]>);
  return { teams: data, error, isLoading, mutate };
}

/** The members of one team; no request while no team is chosen. */
export function useTeamMembers(id: number | null): { members: Member[] | undefined; error: unknown; isLoading: boolean; mutate: KeyedMutator<Member[]> } {
  const { data, error, isLoading, mutate } = useSWR<Member[]>(id === null ? null : teamKey(id), apiFetcher<Member[]>);
  return { members: data, error, isLoading, mutate };
}

/** PUT /api/admin/teams/{id} {user}: adds the user when absent, removes when present; answers the members. */
export function toggleTeamMember(teamId: number, userId: number): Promise<Member[]> {
  return api.put<Member[]>(teamKey(teamId), { user: userId });
}

/** POST /api/admin/teams {name}: a 422 carries errors.name. */
export function createTeam(name: string): Promise<TeamSummary> {
  return api.post<TeamSummary>(TEAMS_KEY, { name });
}
