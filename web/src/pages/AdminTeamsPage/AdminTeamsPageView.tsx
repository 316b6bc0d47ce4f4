import type { Member, TeamSummary } from '../../api/queries/teams.ts';
import type { UserSearchHit } from '../../api/queries/userSearch.ts';
import { AsyncContent } from '../../components/AsyncContent.tsx';
import { MembersPanel, type PeopleMessage } from '../../components/MemberList.tsx';
import { NewPeopleForm } from '../../components/NewPeopleForm.tsx';

export interface AdminTeamsPageViewProps {
  teams: TeamSummary[] | undefined;
  teamsFailed: boolean;
  team: TeamSummary | null;
  teamId: number | null;
  onChooseTeam: (id: number) => void;
  members: Member[] | undefined;
  membersFailed: boolean;
  busy: boolean;
  message: PeopleMessage | null;
  onAdd: (user: UserSearchHit) => void;
  onRemove: (member: Member) => void;
  /** Resolves true when the team was made (the form then clears). */
  onCreate: (name: string) => Promise<boolean>;
  createErrors: string[];
}

/** Team buttons, the chosen team's members (remove icon) and the 'zoek gebruikers' box. */
export function AdminTeamsPageView(props: AdminTeamsPageViewProps) {
  const { teams, teamsFailed, team, teamId, members, membersFailed, busy, message } = props;
  return (
    <div className="page admin-page people-page">
      <header className="admin-page-header">
        <h1>Teams</h1>
      </header>
      <p className="admin-lead">Kies een team om de leden te zien. Zoek een gebruiker om die aan het team toe te voegen.</p>

      <AsyncContent
        data={teams}
        failed={teamsFailed}
        errorText="De teams konden niet worden geladen. Probeer het later opnieuw."
        loadingText="Teams laden…"
      >
        {(teams) => (
          <div className="card people-choices">
            {teams.length === 0 ? (
              <p className="muted">Er zijn nog geen teams.</p>
            ) : (
              <div className="choice-buttons" role="group" aria-label="Teams">
                {teams.map((candidate) => (
                  <button
                    key={candidate.id}
                    type="button"
                    className={candidate.id === teamId ? 'choice-button chosen' : 'choice-button'}
                    aria-pressed={candidate.id === teamId}
                    onClick={() => props.onChooseTeam(candidate.id)}
                  >
                    {candidate.name}
                    <span className="choice-count" aria-label={`${candidate.member_count} leden`}>
                      {candidate.member_count}
                    </span>
                  </button>
                ))}
              </div>
            )}
            <NewPeopleForm
              label="Nieuw team"
              placeholder="naam van het team"
              maxLength={60}
              submitText="Team maken"
              onCreate={props.onCreate}
              errors={props.createErrors}
            />
          </div>
        )}
      </AsyncContent>

      {message && (
        <p className={message.kind === 'ok' ? 'card people-message' : 'card people-message error-text'} role={message.kind === 'ok' ? 'status' : 'alert'}>
          {message.text}
        </p>
      )}

      {teamId !== null && teams !== undefined && team === null && (
        <p className="card page-message">Dit team bestaat niet (meer). Kies een ander team.</p>
      )}

      {team && (
        <MembersPanel
          kind="team"
          title={team.name}
          searchLabel="Lid toevoegen"
          onAdd={props.onAdd}
          members={members}
          failed={membersFailed}
          emptyText="Dit team heeft nog geen leden. Zoek hierboven een gebruiker om toe te voegen."
          removeLabel={(member) => `${member.name} uit ${team.name} verwijderen`}
          onRemove={props.onRemove}
          busy={busy}
        />
      )}
    </div>
  );
}
