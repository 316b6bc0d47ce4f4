import { useState, type FormEvent } from 'react';
import type { Member, TeamSummary } from '../../api/queries/teams.ts';
import type { UserSearchHit } from '../../api/queries/userSearch.ts';
import { Icon } from '../../components/Icon.tsx';
import { UserSearch } from '../../components/UserSearch.tsx';

export interface TeamsMessage {
  kind: 'ok' | 'error';
  text: string;
}

export interface AdminTeamsPageViewProps {
  teams: TeamSummary[] | undefined;
  teamsFailed: boolean;
  team: TeamSummary | null;
  teamId: number | null;
  onChooseTeam: (id: number) => void;
  members: Member[] | undefined;
  membersFailed: boolean;
  busy: boolean;
  message: TeamsMessage | null;
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

      {teamsFailed ? (
        <p className="card error-text" role="alert">
          De teams konden niet worden geladen. Probeer het later opnieuw.
        </p>
      ) : teams === undefined ? (
        <p className="page-message" role="status">
          Teams laden…
        </p>
      ) : (
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
          <NewTeamForm onCreate={props.onCreate} errors={props.createErrors} />
        </div>
      )}

      {message && (
        <p className={message.kind === 'ok' ? 'card people-message' : 'card people-message error-text'} role={message.kind === 'ok' ? 'status' : 'alert'}>
          {message.text}
        </p>
      )}

      {teamId !== null && teams !== undefined && team === null && (
        <p className="card page-message">Dit team bestaat niet (meer). Kies een ander team.</p>
      )}

      {team && (
        <section className="card people-members" aria-labelledby="team-members-heading" data-testid="team-members">
          <h2 id="team-members-heading">{team.name}</h2>
          <UserSearch
            onPick={props.onAdd}
            label="Lid toevoegen"
            showLabel
            chosenIds={members?.map((member) => member.id) ?? []}
            disabled={busy}
          />
          <MemberList
            members={members}
            failed={membersFailed}
            emptyText="Dit team heeft nog geen leden. Zoek hierboven een gebruiker om toe te voegen."
            removeLabel={(member) => `${member.name} uit ${team.name} verwijderen`}
            onRemove={props.onRemove}
            busy={busy}
          />
        </section>
      )}
    </div>
  );
}

function NewTeamForm({ onCreate, errors }: { onCreate: (name: string) => Promise<boolean>; errors: string[] }) {
  const [name, setName] = useState('');
  const [saving, setSaving] = useState(false);
  // The server's errors describe what was sent; once the field changes they no longer apply.
  const [edited, setEdited] = useState(false);
  async function submit(event: FormEvent): Promise<void> {
    event.preventDefault();
    setEdited(false);
    setSaving(true);
    if (await onCreate(name)) setName('');
    setSaving(false);
  }
  return (
    <form className="people-create" onSubmit={(event) => void submit(event)} aria-label="Nieuw team">
      <label className="field">
        <span className="field-label">Nieuw team</span>
        <input type="text" value={name} maxLength={60} placeholder="naam van het team" onChange={(event) => {
            setName(event.target.value);
            setEdited(true);
          }} />
      </label>
      <button type="submit" className="button button-secondary" disabled={saving || name.trim() === ''}>
        Team maken
      </button>
      {errors.length > 0 && !edited && (
        <p className="field-error" role="alert">
          {errors.join(' ')}
        </p>
      )}
    </form>
  );
}

/** Members with their cohort and a remove icon; shared by the teams and groups pages. */
export function MemberList({
  members,
  failed,
  emptyText,
  removeLabel,
  onRemove,
  busy,
}: {
  members: Member[] | undefined;
  failed: boolean;
  emptyText: string;
  removeLabel: (member: Member) => string;
  onRemove: (member: Member) => void;
  busy: boolean;
}) {
  if (failed)
    return (
      <p className="error-text" role="alert">
        De leden konden niet worden geladen.
      </p>
    );
  if (members === undefined)
    return (
      <p className="page-message" role="status">
        Leden laden…
      </p>
    );
  if (members.length === 0) return <p className="muted">{emptyText}</p>;
  return (
    <>
      <p className="member-count">{members.length === 1 ? '1 lid' : `${members.length} leden`}</p>
      <ul className="member-list" data-testid="member-list">
        {members.map((member) => (
          <li key={member.id} className="member-row">
            <button type="button" className="icon-button member-remove" aria-label={removeLabel(member)} title={removeLabel(member)} disabled={busy} onClick={() => onRemove(member)}>
              <Icon name="close" />
            </button>
            <span className="member-name">{member.name}</span>
            <span className="member-meta">{member.group?.cohort ?? 'geen klas'}</span>
            <span className="member-email">{member.email}</span>
          </li>
        ))}
      </ul>
    </>
  );
}
