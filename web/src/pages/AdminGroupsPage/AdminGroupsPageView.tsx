import type { GroupSummary } from '../../api/queries/groups.ts';
import type { Member } from '../../api/queries/teams.ts';
import type { UserSearchHit } from '../../api/queries/userSearch.ts';
import { AsyncContent } from '../../components/AsyncContent.tsx';
import { MembersPanel, type PeopleMessage } from '../../components/MemberList.tsx';
import { NewPeopleForm } from '../../components/NewPeopleForm.tsx';

export interface AdminGroupsPageViewProps {
  search: string;
  onSearch: (search: string) => void;
  groups: GroupSummary[] | undefined;
  groupsFailed: boolean;
  group: GroupSummary | null;
  groupId: number | null;
  groupsLoaded: boolean;
  onChooseGroup: (id: number) => void;
  members: Member[] | undefined;
  membersFailed: boolean;
  busy: boolean;
  message: PeopleMessage | null;
  onAdd: (user: UserSearchHit) => void;
  onRemove: (member: Member) => void;
  onCreate: (cohort: string) => Promise<boolean>;
  createErrors: string[];
}

/** Groups by cohort (searchable), the chosen group's members, the member search and 'Nieuwe groep'. */
export function AdminGroupsPageView(props: AdminGroupsPageViewProps) {
  const { groups, groupsFailed, group, groupId, members, membersFailed, busy, message } = props;
  return (
    <div className="page admin-page people-page">
      <header className="admin-page-header">
        <h1>Groepen</h1>
      </header>
      <p className="admin-lead">Kies een klas om de studenten te zien. Een student zit in één klas: toevoegen haalt de student uit de oude klas.</p>

      <div className="card people-choices">
        <label className="field group-search">
          <span className="field-label">Zoek op klas</span>
          <input type="search" className="text-input" value={props.search} maxLength={50} placeholder="bijv. SD23" onChange={(event) => props.onSearch(event.target.value)} />
        </label>
        <AsyncContent
          data={groups}
          failed={groupsFailed}
          errorText="De groepen konden niet worden geladen. Probeer het later opnieuw."
          loadingText="Groepen laden…"
          empty={<>Geen klas gevonden met ‘{props.search.trim()}’.</>}
          errorClassName="error-text"
          emptyClassName="muted"
        >
          {(groups) => (
            <div className="choice-buttons" role="group" aria-label="Groepen">
              {groups.map((candidate) => (
                <button
                  key={candidate.id}
                  type="button"
                  className={candidate.id === groupId ? 'choice-button chosen' : 'choice-button'}
                  aria-pressed={candidate.id === groupId}
                  onClick={() => props.onChooseGroup(candidate.id)}
                >
                  {candidate.cohort}
                  <span className="choice-count" aria-label={`${candidate.member_count} leden`}>
                    {candidate.member_count}
                  </span>
                </button>
              ))}
            </div>
          )}
        </AsyncContent>
        <NewPeopleForm
          label="Nieuwe groep"
          placeholder="klas, bijv. SD24"
          maxLength={20}
          submitText="Groep maken"
          onCreate={props.onCreate}
          errors={props.createErrors}
        />
      </div>

      {message && (
        <p className={message.kind === 'ok' ? 'card people-message' : 'card people-message error-text'} role={message.kind === 'ok' ? 'status' : 'alert'}>
          {message.text}
        </p>
      )}

      {groupId !== null && props.groupsLoaded && group === null && <p className="card page-message">Deze groep bestaat niet (meer). Kies een andere groep.</p>}

      {group && (
        <MembersPanel
          kind="group"
          title={group.cohort}
          searchLabel="Student toevoegen"
          chosenText="zit al in deze klas"
          onAdd={props.onAdd}
          members={members}
          failed={membersFailed}
          emptyText="Deze klas heeft nog geen studenten. Zoek hierboven een student om toe te voegen."
          removeLabel={(member) => `${member.name} uit ${group.cohort} halen`}
          onRemove={props.onRemove}
          busy={busy}
        />
      )}
    </div>
  );
}
