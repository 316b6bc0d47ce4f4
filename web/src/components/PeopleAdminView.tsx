import type { ReactNode } from 'react';
import { AsyncContent } from './AsyncContent.tsx';
import type { PeopleMessage } from './MemberList.tsx';
import { NewPeopleForm } from './NewPeopleForm.tsx';

/** One choice button: a team or a group, with its member count. */
export interface PeopleChoice {
  id: number;
  label: string;
  memberCount: number;
}

export interface PeopleAdminViewProps {
  title: string;
  lead: string;
  /** The groups page filters its choices by cohort; the teams page has no search. */
  search?: { value: string; onChange: (value: string) => void; label: string; placeholder: string; maxLength: number };
  choices: PeopleChoice[] | undefined;
  choicesFailed: boolean;
  /** The button group's accessible name ('Teams', 'Groepen'). */
  choicesLabel: string;
  loadingText: string;
  errorText: string;
  /** Shown when there is nothing to choose (none yet, or none matching the search). */
  emptyText: ReactNode;
  chosenId: number | null;
  onChoose: (id: number) => void;
  newForm: { label: string; placeholder: string; maxLength: number; submitText: string; onCreate: (value: string) => Promise<boolean>; errors: string[] };
  message: PeopleMessage | null;
  /** The URL names a team or group that does not exist (any more): missingText is shown. */
  missing: boolean;
  missingText: string;
  /** The chosen one's members (MembersPanel), or null when none is chosen. */
  panel: ReactNode;
}

/**
 * The teams and groups admin pages (spec §2): the choice buttons (optionally searchable), a form
 * for a new one, what the last change did, and the chosen one's members.
 */
export function PeopleAdminView(props: PeopleAdminViewProps) {
  const { search, message } = props;
  return (
    <div className="page admin-page people-page">
      <header className="admin-page-header">
        <h1>{props.title}</h1>
      </header>
      <p className="admin-lead">{props.lead}</p>

      <div className="card people-choices">
        {search && (
          <label className="field group-search">
            <span className="field-label">{search.label}</span>
            <input
              type="search"
              className="text-input"
              value={search.value}
              maxLength={search.maxLength}
              placeholder={search.placeholder}
              onChange={(event) => search.onChange(event.target.value)}
            />
          </label>
        )}
        <AsyncContent
          data={props.choices}
          failed={props.choicesFailed}
          errorText={props.errorText}
          loadingText={props.loadingText}
          empty={props.emptyText}
          errorClassName="error-text"
          emptyClassName="muted"
        >
          {(choices) => (
            <div className="choice-buttons" role="group" aria-label={props.choicesLabel}>
              {choices.map((choice) => (
                <button
                  key={choice.id}
                  type="button"
                  className={choice.id === props.chosenId ? 'choice-button chosen' : 'choice-button'}
                  aria-pressed={choice.id === props.chosenId}
                  onClick={() => props.onChoose(choice.id)}
                >
                  {choice.label}
                  <span className="choice-count" aria-label={`${choice.memberCount} leden`}>
                    {choice.memberCount}
                  </span>
                </button>
              ))}
            </div>
          )}
        </AsyncContent>
        <NewPeopleForm {...props.newForm} />
      </div>

      {message && (
        <p className={message.kind === 'ok' ? 'card people-message' : 'card people-message error-text'} role={message.kind === 'ok' ? 'status' : 'alert'}>
          {message.text}
        </p>
      )}

      {props.missing && <p className="card page-message">{props.missingText}</p>}

      {props.panel}
    </div>
  );
}
