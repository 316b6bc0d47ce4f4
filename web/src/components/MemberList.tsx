import type { Member } from '../api/queries/teams.ts';
import type { UserSearchHit } from '../api/queries/userSearch.ts';
import { AsyncContent } from './AsyncContent.tsx';
import { Icon } from './Icon.tsx';
import { UserSearch } from './UserSearch.tsx';

/** A line above the admin people pages' content: what an add, remove or create did. */
export interface PeopleMessage {
  kind: 'ok' | 'error';
  text: string;
}

export interface MemberListProps {
  members: Member[] | undefined;
  failed: boolean;
  emptyText: string;
  removeLabel: (member: Member) => string;
  onRemove: (member: Member) => void;
  busy: boolean;
}

/** Members with their cohort and a remove icon; the teams and groups pages both use it. */
export function MemberList({ members, failed, emptyText, removeLabel, onRemove, busy }: MemberListProps) {
  return (
    <AsyncContent
      data={members}
      failed={failed}
      errorText="De leden konden niet worden geladen."
      loadingText="Leden laden…"
      empty={emptyText}
      errorClassName="error-text"
      emptyClassName="muted"
    >
      {(members) => (
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
      )}
    </AsyncContent>
  );
}

/**
 * The chosen team's or group's card: its name, a search box to add someone and the member list.
 * `kind` names the test id and heading id ('team-members', 'group-members').
 */
export function MembersPanel({
  kind,
  title,
  searchLabel,
  chosenText,
  onAdd,
  ...list
}: MemberListProps & {
  kind: 'team' | 'group';
  title: string;
  searchLabel: string;
  chosenText?: string;
  onAdd: (user: UserSearchHit) => void;
}) {
  const headingId = `${kind}-members-heading`;
  return (
    <section className="card people-members" aria-labelledby={headingId} data-testid={`${kind}-members`}>
      <h2 id={headingId}>{title}</h2>
      <UserSearch
        onPick={onAdd}
        label={searchLabel}
        showLabel
        chosenIds={list.members?.map((member) => member.id) ?? []}
        chosenText={chosenText}
        disabled={list.busy}
      />
      <MemberList {...list} />
    </section>
  );
}
