import type { FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { Icon } from '../../components/Icon.tsx';
import { databaseAdminHref, type UserDatabase } from '../../api/queries/databases.ts';
import { pathTo } from '../../routePaths.ts';
import { DATABASE_NAME_MAX_LENGTH } from '@devplein/contract/validation/databaseName';
import '../../styles/databases-vpn.css';

/** Spec §9: a hidden password is exactly seven X characters. */
export const MASKED_PASSWORD = 'XXXXXXX';

/** Spec §9: the database server's port. */

export interface DatabasesPageViewProps {
  databases: UserDatabase[] | undefined;
  /** The list could not be loaded (the server's Dutch message, or a general line). */
  loadError: string | null;
  /** The dev server's internal host where MariaDB listens (meta tag db-host). */
  host: string;
  /** Its port: 3306 on a dev server (meta tag db-port). */
  port: number;
  /** Database administration address (meta tag db-admin-url). */
  adminUrl: string;
  /** phpMyAdmin sign-on through the control plane is on (meta tag db-admin-signon). */
  adminSignon?: boolean;
  /** What the stored name starts with, `u{userId}_`: shown before the input. */
  namePrefix: string;
  /** The typed name, already lowercased and stripped (normalizeDatabaseName). */
  name: string;
  /** databaseNameProblem of the typed name; null when it may be created. */
  nameProblem: string | null;
  /** Why the server refused the last create: errors.db of a 422, or the 503/501 message (spec §8). */
  createErrors: readonly string[];
  creating: boolean;
  /** Name of the database just made, for the confirmation line. */
  created: string | null;
  shownPasswords: ReadonlySet<number>;
  /** Database whose drop waits for 'Ja!' or 'Nee!'. */
  confirmingId: number | null;
  droppingId: number | null;
  dropError: string | null;
  onNameChange: (typed: string) => void;
  onCreate: () => void;
  onTogglePassword: (id: number) => void;
  onAskDrop: (id: number | null) => void;
  onDrop: (id: number) => void;
}

const isLoopback = (host: string): boolean => host === 'localhost' || host === '::1' || host.startsWith('127.');

/**
 * /databases (spec §2 Databases): how to connect (fixed internal host, port 3306 on a dev server), the list with
 * masked passwords and admin links, and the create form (1–3 letters, check mark, 'Aanmaken').
 */
export function DatabasesPageView(props: DatabasesPageViewProps) {
  return (
    <div className="page dbvpn-page databases-page">
      <header className="dbvpn-header">
        <h1>
          <Icon name="database" /> Databases
        </h1>
      </header>
      <section className="card dbvpn-intro" aria-labelledby="databases-connect-heading">
        <h2 id="databases-connect-heading">Verbinden</h2>
        <p>
          De databaseserver (MariaDB) heeft een vast intern adres en poort {props.port}. Gebruik die in je projecten,
          samen met de gebruikersnaam en het wachtwoord van je database.
        </p>
        <p className="dbvpn-connection" data-testid="database-host">
          Host: <code>{props.host}</code>, poort: <code>{props.port}</code>
        </p>
        {isLoopback(props.host) ? (
          // `npm start` on one's own computer: the server is right here, no VPN in between.
          <p className="muted">Deze databaseserver draait op deze computer: je bereikt hem alleen hier.</p>
        ) : (
          <p className="muted">
            Werk je thuis? Dan heb je eerst een <Link to={pathTo('vpn')}>VPN-verbinding</Link> nodig om de database te bereiken.
          </p>
        )}
      </section>

      <section className="dbvpn-section" aria-labelledby="databases-list-heading">
        <h2 id="databases-list-heading">Jouw databases</h2>
        <DatabaseList {...props} />
      </section>

      <CreateForm {...props} />
    </div>
  );
}

function DatabaseList(props: DatabasesPageViewProps) {
  const { databases, loadError, shownPasswords, confirmingId, droppingId, dropError, adminUrl, adminSignon = false } = props;
  if (loadError !== null && databases === undefined) {
    return (
      <p className="card error-text" role="alert">
        {loadError}
      </p>
    );
  }
  if (databases === undefined) {
    return (
      <p className="page-message" role="status">
        Databases laden…
      </p>
    );
  }
  if (databases.length === 0) {
    return (
      <p className="card page-message" data-testid="no-databases">
        Je hebt nog geen databases.
      </p>
    );
  }
  return (
    <>
      {dropError !== null && (
        <p className="card error-text" role="alert">
          {dropError}
        </p>
      )}
      <ul className="database-list" aria-label="Jouw databases">
        {databases.map((database) => {
          const shown = shownPasswords.has(database.id);
          const confirming = confirmingId === database.id;
          return (
            <li key={database.id} className="card database-item" data-testid="database-item">
              <div className="database-name">
                <Icon name="database" />
                <code>{database.name}</code>
              </div>
              <dl className="database-facts">
                <div>
                  <dt>Gebruiker</dt>
                  <dd>
                    <code>{database.user}</code>
                  </dd>
                </div>
                <div>
                  <dt>Wachtwoord</dt>
                  <dd className="database-password">
                    <code data-testid="database-password">{shown ? database.password : MASKED_PASSWORD}</code>
                    <button
                      type="button"
                      className="button button-secondary button-small"
                      aria-pressed={shown}
                      aria-label={`Wachtwoord van ${database.name} ${shown ? 'verbergen' : 'tonen'}`}
                      onClick={() => props.onTogglePassword(database.id)}
                    >
                      {shown ? 'Verberg' : 'Toon'}
                    </button>
                  </dd>
                </div>
              </dl>
              {confirming ? (
                <div className="database-confirm" role="group" aria-label={`Verwijderen van ${database.name} bevestigen`}>
                  <p>Wil je "{database.name}" verwijderen?</p>
                  <div className="database-actions">
                    <button
                      type="button"
                      className="button button-danger button-small"
                      disabled={droppingId === database.id}
                      onClick={() => props.onDrop(database.id)}
                    >
                      Ja!
                    </button>
                    {/* The Verwijderen button is gone now: keyboard focus lands on the safe answer. */}
                    <button type="button" className="button button-secondary button-small" autoFocus onClick={() => props.onAskDrop(null)}>
                      Nee!
                    </button>
                  </div>
                </div>
              ) : (
                <div className="database-actions">
                  <a
                    className="button button-secondary button-small"
                    href={databaseAdminHref(adminUrl, database, adminSignon)}
                    target="_blank"
                    rel="noreferrer"
                    aria-label={`${database.name} beheren in phpMyAdmin`}
                  >
                    Beheren
                  </a>
                  <button
                    type="button"
                    className="button button-danger button-small"
                    aria-label={`${database.name} verwijderen`}
                    onClick={() => props.onAskDrop(database.id)}
                  >
                    Verwijderen
                  </button>
                </div>
              )}
            </li>
          );
        })}
      </ul>
    </>
  );
}

function CreateForm(props: DatabasesPageViewProps) {
  const { name, nameProblem, createErrors, creating, created, namePrefix } = props;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (nameProblem === null && !creating) props.onCreate();
  };
  const available = nameProblem === null;
  return (
    <section className="card database-create" aria-labelledby="database-create-heading">
      <h2 id="database-create-heading">Nieuwe database</h2>
      {createErrors.length > 0 && (
        <div className="database-errors" role="alert" data-testid="database-errors">
          {createErrors.map((message) => (
            <h3 key={message} className="database-error">
              {message}
            </h3>
          ))}
        </div>
      )}
      <form onSubmit={submit} noValidate aria-label="Database aanmaken">
        <label className="field-label" htmlFor="database-name">
          Naam
        </label>
        <div className="database-form-row">
          <span className="database-prefix" aria-hidden="true">
            {namePrefix}
          </span>
          <input
            id="database-name"
            name="db"
            type="text"
            className="text-input database-name-input"
            autoComplete="off"
            autoCapitalize="off"
            spellCheck={false}
            maxLength={DATABASE_NAME_MAX_LENGTH}
            placeholder="3 letters"
            value={name}
            aria-describedby="database-name-hint"
            onChange={(event) => props.onNameChange(event.target.value)}
          />
          <span className="database-check" data-testid="database-name-ok">
            {available && (
              <span role="img" aria-label="Naam is beschikbaar">
                ✓
              </span>
            )}
          </span>
          <button type="submit" className="button button-primary" disabled={!available || creating}>
            {creating ? 'Bezig…' : 'Aanmaken'}
          </button>
        </div>
        <p id="database-name-hint" className="form-hint" aria-live="polite">
          {name !== '' && nameProblem !== null && !createErrors.includes(nameProblem) ? (
            <span className="database-name-problem">{nameProblem}</span>
          ) : created !== null && name === '' ? (
            <span className="form-success">Database {created} is aangemaakt.</span>
          ) : (
            <>
              1 tot 3 kleine letters (a-z). Je database en je gebruiker krijgen de naam{' '}
              <code>
                {namePrefix}
                {name === '' ? '…' : name}
              </code>
              .
            </>
          )}
        </p>
      </form>
    </section>
  );
}
