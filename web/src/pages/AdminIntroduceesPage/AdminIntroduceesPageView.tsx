import type { FormEvent } from 'react';
import type { Introducee } from '../../api/queries/introducees.ts';
import { AsyncContent } from '../../components/AsyncContent.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { introduceeGitUsername } from '@devplein/contract/validation/licensesAndIntroducees';
import '../../styles/licenses-and-introducees.css';

// The page is 'Meelopers' at /admin/hangers (the spec's names); in code it is 'introducee'.

/** A hidden password: seven X characters, as the databases page does (spec §9). */
export const MASKED_PASSWORD = 'XXXXXXX';

export interface AdminIntroduceesPageViewProps {
  introducees: Introducee[] | undefined;
  loading: boolean;
  failed: boolean;
  name: string;
  /** What is wrong with the typed name (shown while typing); null when fine or empty. */
  nameProblem: string | null;
  /** The server's refusal (e.g. '… bestaat al.') or a failed request. */
  formError: string | null;
  creating: boolean;
  /** Name of the introducee just created, for the confirmation line. */
  created: string | null;
  shownPasswords: ReadonlySet<number>;
  confirmingId: number | null;
  deletingId: number | null;
  deleteError: string | null;
  onNameChange: (name: string) => void;
  onCreate: () => void;
  onTogglePassword: (id: number) => void;
  onAskDelete: (id: number | null) => void;
  onDelete: (id: number) => void;
}

/** Name input and Create; table of domain, git user name, git password and delete (spec §2). */
export function AdminIntroduceesPageView(props: AdminIntroduceesPageViewProps) {
  const { name, nameProblem, formError, creating, created } = props;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    props.onCreate();
  };
  const message = formError ?? nameProblem;
  return (
    <div className="page admin-page admin-introducees-page">
      <header className="admin-page-header">
        <h1>Meelopers</h1>
      </header>
      <p className="admin-lead">
        Een meeloper krijgt een eigen website en een git-account. De gitgebruikersnaam is de naam zonder de eerste drie
        tekens.
      </p>

      <form className="card introducee-form" onSubmit={submit} noValidate aria-label="Meeloper aanmaken">
        <label className="field" htmlFor="introducee-name">
          <span className="field-label">Naam</span>
        </label>
        <div className="introducee-form-row">
          <input
            id="introducee-name"
            name="name"
            type="text"
            autoComplete="off"
            autoCapitalize="off"
            spellCheck={false}
            maxLength={31}
            placeholder="bijv. mlpjansen"
            value={name}
            aria-invalid={message !== null}
            aria-describedby="introducee-form-message"
            onChange={(event) => props.onNameChange(event.target.value)}
          />
          <button type="submit" className="button button-primary" disabled={name === '' || nameProblem !== null || creating}>
            {creating ? 'Bezig…' : 'Create'}
          </button>
        </div>
        <div id="introducee-form-message" aria-live="polite">
          {message !== null ? (
            <p className="form-error" role="alert">
              {message}
            </p>
          ) : name !== '' ? (
            <p className="form-hint">
              Gitgebruikersnaam: <code>{introduceeGitUsername(name)}</code>
            </p>
          ) : created !== null ? (
            <p className="form-success">Meeloper {created} is aangemaakt.</p>
          ) : (
            <p className="form-hint">Kleine letters, cijfers en streepjes; 4 tot 31 tekens, begin met een letter.</p>
          )}
        </div>
      </form>

      <IntroduceeTable {...props} />
    </div>
  );
}

function IntroduceeTable(props: AdminIntroduceesPageViewProps) {
  const { introducees, loading, failed, shownPasswords, confirmingId, deletingId, deleteError } = props;
  return (
    <AsyncContent
      data={introducees}
      failed={failed}
      loading={loading}
      errorText="De meelopers konden niet worden geladen. Probeer het later opnieuw."
      loadingText="Meelopers laden…"
      empty="Er zijn nog geen meelopers."
    >
      {(introducees) => (
        <>
          {deleteError !== null && (
            <p className="card error-text" role="alert">
              {deleteError}
            </p>
          )}
          <DataTable
            columns={[
              { header: 'Domein' },
              { header: 'Gitgebruikersnaam' },
              { header: 'Gitwachtwoord' },
              { header: <span className="visually-hidden">Verwijderen</span> },
            ]}
            rows={introducees}
            className="introducees-table"
            testId="admin-introducees"
            renderRow={(introducee) => {
              const shown = shownPasswords.has(introducee.id);
              return (
                <tr key={introducee.id} data-testid="admin-introducee-row">
                  <td className="introducee-domain">
                    <a href={`http://${introducee.domain}`} target="_blank" rel="noreferrer">
                      {introducee.domain}
                    </a>
                  </td>
                  <td data-label="Gitgebruikersnaam">
                    <code>{introducee.git_username}</code>
                  </td>
                  <td data-label="Gitwachtwoord">
                    <span className="introducee-password">
                      {introducee.git_password === '' ? (
                        <span className="muted">onleesbaar</span>
                      ) : (
                        <code data-testid="introducee-password">{shown ? introducee.git_password : MASKED_PASSWORD}</code>
                      )}
                      {introducee.git_password !== '' && (
                        <button
                          type="button"
                          className="button button-secondary button-small"
                          aria-pressed={shown}
                          aria-label={`Wachtwoord van ${introducee.name} ${shown ? 'verbergen' : 'tonen'}`}
                          onClick={() => props.onTogglePassword(introducee.id)}
                        >
                          {shown ? 'Verberg' : 'Toon'}
                        </button>
                      )}
                    </span>
                  </td>
                  <td className="introducee-actions">
                    {confirmingId === introducee.id ? (
                      <span className="introducee-confirm" role="group" aria-label={`Verwijderen van ${introducee.name} bevestigen`}>
                        <span>Wil je "{introducee.name}" verwijderen?</span>
                        <button
                          type="button"
                          className="button button-danger button-small"
                          disabled={deletingId === introducee.id}
                          onClick={() => props.onDelete(introducee.id)}
                        >
                          Ja!
                        </button>
                        <button type="button" className="button button-secondary button-small" onClick={() => props.onAskDelete(null)}>
                          Nee!
                        </button>
                      </span>
                    ) : (
                      <button
                        type="button"
                        className="button button-danger button-small"
                        aria-label={`${introducee.name} verwijderen`}
                        onClick={() => props.onAskDelete(introducee.id)}
                      >
                        Verwijder
                      </button>
                    )}
                  </td>
                </tr>
              );
            }}
          />
        </>
      )}
    </AsyncContent>
  );
}
