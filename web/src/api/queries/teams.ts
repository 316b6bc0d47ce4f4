import type { KeyedMutator } from 'swr';
import { createTeam as createTeamEndpoint, listTeams, teamMembers, toggleTeamMember as toggleTeamMemberEndpoint } from '@devplein/contract/http/admin-teams';
import type { TeamSummaryJson as TeamSummary, MemberJson as Member } from '@devplein/contract/users';
import { call, useEndpoint } from '../endpoints.ts';
export type { TeamSummary, Member };

export function useTeams(): { teams: TeamSummary[] | undefined; error: unknown; isLoading: boolean; mutate: KeyedMutator<TeamSummary[]> } {
  const { data, error, isLoading, mutate } = useEndpoint(listTeams, {});
  return { teams: data, error, isLoading, mutate };
}

/** The members of one team; no request while no team is chosen. */
export function useTeamMembers(id: number | null): { members: Member[] | undefined; error: unknown; isLoading: boolean; mutate: KeyedMutator<Member[]> } {
  const { data, error, isLoading, mutate } = useEndpoint(teamMembers, id === null ? null : { params: { id } });
  return { members: data, error, isLoading, mutate };
}

/** Adds the user when absent, removes when present; answers the members. */
export function toggleTeamMember(teamId: number, userId: number): Promise<Member[]> {
  return call(toggleTeamMemberEndpoint, { params: { id: teamId }, body: { user: userId } });
}

/** A new team; a 422 carries errors.name. */
export function createTeam(name: string): Promise<TeamSummary> {
  return call(createTeamEndpoint, { body: { name } });
}
