import { useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { ApiError } from '../../api/client.ts';
import { createTeam, toggleTeamMember, useTeamMembers, useTeams } from '../../api/queries/teams.ts';
import type { UserSearchHit } from '../../api/queries/userSearch.ts';
import type { PeopleMessage } from '../../components/MemberList.tsx';
import { AdminTeamsPageView } from './AdminTeamsPageView.tsx';
import '../../styles/teams-groups.css';

/**
 * /admin/users/teams (spec §2 Teams): team buttons; the chosen team's members with a remove
 * icon and a 'zoek gebruikers' box whose hits become members. The chosen team is in the URL
 * (?team=) so a reload keeps it. Beyond the spec: a small form to make a new team.
 */
export function AdminTeamsPage() {
  const [params, setParams] = useSearchParams();
  const chosen = Number(params.get('team'));
  const teamId = Number.isInteger(chosen) && chosen > 0 ? chosen : null;
  const teams = useTeams();
  const members = useTeamMembers(teamId);
  const [message, setMessage] = useState<PeopleMessage | null>(null);
  const [busy, setBusy] = useState(false);
  const [createErrors, setCreateErrors] = useState<string[]>([]);
  const team = teams.teams?.find((candidate) => candidate.id === teamId) ?? null;

  // PUT toggles: what happened is read from the answer, not assumed from the button.
  async function toggle(user: { id: number; name: string }): Promise<void> {
    if (teamId === null) return;
    setBusy(true);
    try {
      const updated = await toggleTeamMember(teamId, user.id);
      await members.mutate(updated, { revalidate: false });
      void teams.mutate();
      const teamName = team?.name ?? 'het team';
      const added = updated.some((member) => member.id === user.id);
      setMessage({ kind: 'ok', text: added ? `${user.name} is toegevoegd aan ${teamName}.` : `${user.name} is uit ${teamName} gehaald.` });
    } catch (error) {
      setMessage({ kind: 'error', text: error instanceof ApiError ? error.message : 'Dat lukte niet. Probeer het nog eens.' });
    } finally {
      setBusy(false);
    }
  }

  async function create(name: string): Promise<boolean> {
    setCreateErrors([]);
    try {
      const created = await createTeam(name);
      await teams.mutate();
      setParams({ team: String(created.id) });
      setMessage({ kind: 'ok', text: `Team ${created.name} is gemaakt.` });
      return true;
    } catch (error) {
      setCreateErrors(error instanceof ApiError && error.status === 422 ? Object.values(error.fieldErrors).flat() : ['Het team kon niet worden gemaakt.']);
      return false;
    }
  }

  return (
    <AdminTeamsPageView
      teams={teams.teams}
      teamsFailed={teams.error !== undefined}
      team={team}
      teamId={teamId}
      onChooseTeam={(id) => {
        setMessage(null);
        setParams({ team: String(id) });
      }}
      members={members.members}
      membersFailed={members.error !== undefined}
      busy={busy}
      message={message}
      onAdd={(user: UserSearchHit) => void toggle(user)}
      onRemove={(member) => void toggle(member)}
      onCreate={create}
      createErrors={createErrors}
    />
  );
}
