import { useEffect, useId, useRef } from 'react';
import {
  NO_GROUP,
  cohortLabel,
  isActiveUser,
  type AdminUser,
  type UserAction,
  type UserFilter,
} from '../../api/queries/adminUsers.ts';
import { AsyncContent } from '../../components/AsyncContent.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { exportUsers } from '@devplein/contract/http/admin-exports';

/** The line above the table after an action: done (ok), done but a dev server still has work (warning), or failed. */
export interface StatusMessage {
  text: string;
  tone: 'ok' | 'warning' | 'error';
}

/** A user whose deletion waits for confirmation; `error` is the server's refusal or failure. */
export interface DeleteState {
  user: AdminUser;
  busy: boolean;
  error: string | null;
}

export interface AdminUsersPageViewProps {
  users: AdminUser[] | undefined;
  failed: boolean;
  loading: boolean;
  /** The users the filters let through. */
  rows: AdminUser[];
  cohorts: string[];
  filter: UserFilter;
  onFilterChange: (filter: UserFilter) => void;
  /** The signed-in admin: their own row offers no Disable, no delete and no clearing of the developer flag. */
  currentUserId: number | null;
  busyId: number | null;
  status: StatusMessage | null;
  onDismissStatus: () => void;
  onAction: (user: AdminUser, action: UserAction) => void;
  onDeveloper: (user: AdminUser, developer: boolean) => void;
  deleting: DeleteState | null;
  onAskDelete: (user: AdminUser | null) => void;
  onConfirmDelete: () => void;
}

/**
 * Spec §2 Users: the three filters, then per row delete icon, name, cohort or 'geen', the
 * developer flag (beyond the spec), Activeer or Disable.
 */
export function AdminUsersPageView(props: AdminUsersPageViewProps) {
  const { users, failed, loading, filter, onFilterChange, cohorts } = props;
  const ids = useId();
  return (
    <div className="page admin-page admin-users-page">
      <header className="admin-page-header">
        <h1>Gebruikers</h1>
        {/* Every user, whatever the filters: the sheet is for Excel's own filters. */}
        <a className="button button-secondary button-small" href={exportUsers.path} download>
          Alle gebruikers downloaden (CSV)
        </a>
      </header>
      <form className="card user-filters" role="search" aria-label="Gebruikers filteren" onSubmit={(event) => event.preventDefault()}>
        <div className="field user-filter-name">
          <label className="field-label" htmlFor={`${ids}-name`}>
            Naam
          </label>
          <input
            id={`${ids}-name`}
            type="text"
            name="name"
            placeholder="Zoek op naam"
            autoComplete="off"
            value={filter.name}
            onChange={(event) => onFilterChange({ ...filter, name: event.target.value })}
          />
        </div>
        <div className="field user-filter-cohort">
          <label className="field-label" htmlFor={`${ids}-cohort`}>
            Klas
          </label>
          <select id={`${ids}-cohort`} value={filter.cohort} onChange={(event) => onFilterChange({ ...filter, cohort: event.target.value })}>
            <option value="">Alle klassen</option>
            {cohorts.map((cohort) => (
              <option key={cohort} value={cohort}>
                {cohort}
              </option>
            ))}
            <option value={NO_GROUP}>geen</option>
          </select>
        </div>
        <label className="checkbox-field user-filter-activation">
          <input
            type="checkbox"
            checked={filter.notActivated}
            onChange={(event) => onFilterChange({ ...filter, notActivated: event.target.checked })}
          />
          Niet geactiveerd
        </label>
      </form>

      <div aria-live="polite" className="user-status">
        {props.status !== null && (
          <div className={`card user-status-message user-status-${props.status.tone}`}>
            <p className="user-status-text" role={props.status.tone === 'ok' ? 'status' : 'alert'}>
              {props.status.text}
            </p>
            <button type="button" className="button button-small button-secondary user-status-close" onClick={props.onDismissStatus}>
              Sluiten
            </button>
          </div>
        )}
      </div>

      <AsyncContent
        data={users}
        failed={failed}
        loading={loading}
        errorText="De gebruikers konden niet worden geladen. Probeer het later opnieuw."
        loadingText="Gebruikers laden…"
      >
        {() => <UserTable {...props} />}
      </AsyncContent>

      {props.deleting !== null && (
        <DeleteUserDialog
          state={props.deleting}
          onCancel={() => props.onAskDelete(null)}
          onConfirm={props.onConfirmDelete}
        />
      )}
    </div>
  );
}

function UserTable({ rows, filter, currentUserId, busyId, onAction, onDeveloper, onAskDelete }: AdminUsersPageViewProps) {
  if (rows.length === 0) {
    return (
      <p className="card page-message" data-testid="users-empty">
        {filter.notActivated ? 'Er zijn geen niet-geactiveerde gebruikers met deze filters.' : 'Er zijn geen gebruikers met deze filters.'}
      </p>
    );
  }
  return (
    <DataTable
      columns={[
        { header: <span className="visually-hidden">Verwijderen</span>, className: 'user-delete-column' },
        { header: 'Naam' },
        { header: 'Klas' },
        { header: 'Ontwikkelaar', className: 'user-developer-column' },
        { header: 'Actie', className: 'user-action-column' },
      ]}
      rows={rows}
      className="user-table"
      testId="admin-users"
      before={
        <p className="user-count muted">
          {rows.length === 1 ? '1 gebruiker' : `${rows.length} gebruikers`}
        </p>
      }
      renderRow={(user) => {
        const self = user.id === currentUserId;
        const active = isActiveUser(user);
        const busy = busyId === user.id;
        return (
          <tr key={user.id} data-testid="admin-user-row">
            <td className="user-delete-column">
              <button
                type="button"
                className="icon-button user-delete-button"
                aria-label={`Verwijder ${user.name}`}
                title={self ? 'Je kunt je eigen account niet verwijderen' : `Verwijder ${user.name}`}
                disabled={self}
                onClick={() => onAskDelete(user)}
              >
                <TrashIcon />
              </button>
            </td>
            <th scope="row" className="user-name">
              <span data-testid="user-name">{user.name}</span>
              {self && <span className="muted"> (jij)</span>}
              {user.disabled_at !== null && <span className="badge badge-disabled">Uitgeschakeld</span>}
              {user.access_not_done !== null && (
                <span className="badge badge-pending" title={user.access_not_done}>
                  Wacht op ontwikkelserver
                </span>
              )}
            </th>
            <td className="user-cohort">{cohortLabel(user)}</td>
            <td className="user-developer-column">
              <label className="user-developer-field">
              <input
                type="checkbox"
                className="user-developer-toggle"
                checked={user.developer}
                disabled={busy || (self && user.developer)}
                aria-label={`Ontwikkelaar: ${user.name}`}
                title={
                  self && user.developer
                    ? 'Je kunt je eigen ontwikkelaarsrechten niet intrekken'
                    : user.developer
                      ? 'Ontwikkelaarsrechten intrekken: databases, VPN en SSH-toegang gaan dicht'
                      : 'Ontwikkelaar maken: databases, VPN en SSH keys'
                }
                onChange={(event) => onDeveloper(user, event.target.checked)}
              />
                {/* The column header says it on a wide screen; on a phone the rows are cards without one. */}
                <span className="user-developer-text" aria-hidden="true">
                  Ontwikkelaar
                </span>
              </label>
            </td>
            <td className="user-action-column">
              {active ? (
                <button
                  type="button"
                  className="button button-small button-danger"
                  disabled={busy || self}
                  title={self ? 'Je kunt je eigen account niet uitschakelen' : undefined}
                  aria-label={`Disable ${user.name}`}
                  onClick={() => onAction(user, 'disable')}
                >
                  Disable
                </button>
              ) : (
                <button
                  type="button"
                  className="button button-small button-activate"
                  disabled={busy}
                  aria-label={`Activeer ${user.name}`}
                  onClick={() => onAction(user, 'verify')}
                >
                  Activeer
                </button>
              )}
            </td>
          </tr>
        );
      }}
    />
  );
}

/** The confirmation: what deleting does to the user's projects, databases, VPN config and SSH keys. */
function DeleteUserDialog({ state, onCancel, onConfirm }: { state: DeleteState; onCancel: () => void; onConfirm: () => void }) {
  const titleId = useId();
  const cancelRef = useRef<HTMLButtonElement>(null);
  const { user, busy, error } = state;
  const cancelLatest = useRef(onCancel);
  useEffect(() => {
    cancelLatest.current = onCancel;
  });
  // Focus the safe choice once, when the dialog opens; Escape cancels.
  useEffect(() => {
    cancelRef.current?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') cancelLatest.current();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  return (
    <div className="dialog-backdrop" onClick={(event) => event.target === event.currentTarget && onCancel()}>
      <div className="card dialog" role="dialog" aria-modal="true" aria-labelledby={titleId}>
        <h2 id={titleId}>{user.name} verwijderen?</h2>
        <p>Het account verdwijnt voorgoed. Dit gebeurt er met wat {user.name} heeft:</p>
        <ul className="delete-consequences">
          <li>
            <strong>Projecten:</strong> projecten die {user.name} met anderen deelt blijven bestaan, zonder {user.name} als lid;
            diens SSH keys gaan eruit en open SSH-sessies worden beëindigd. Projecten waarin {user.name} het enige lid is,
            worden met container en al verwijderd.
          </li>
          <li>
            <strong>Databases:</strong> worden van de ontwikkelserver verwijderd, met alles wat erin staat.
          </li>
          <li>
            <strong>VPN-configuratie:</strong> wordt verwijderd; de VPN-verbinding werkt daarna niet meer.
          </li>
          <li>
            <strong>SSH keys:</strong> worden samen met het account verwijderd, net als levels, licenties en het lidmaatschap
            van teams.
          </li>
        </ul>
        <p className="muted delete-unreachable-note">
          Is een ontwikkelserver niet bereikbaar, dan wordt {user.name} alleen uitgeschakeld; verwijder later opnieuw.
        </p>
        {error !== null && (
          <p className="form-error delete-refusal" role="alert">
            {error}
          </p>
        )}
        <div className="form-actions">
          <button type="button" className="button button-danger" disabled={busy} onClick={onConfirm}>
            {busy ? 'Bezig met verwijderen…' : 'Ja, verwijderen'}
          </button>
          <button type="button" className="button button-secondary" ref={cancelRef} onClick={onCancel}>
            Annuleren
          </button>
        </div>
      </div>
    </div>
  );
}

/** Bin icon (after Feather's trash-2, MIT); the button's aria-label carries the meaning. */
function TrashIcon() {
  return (
    <svg
      className="icon"
      viewBox="0 0 24 24"
      width="18"
      height="18"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.8"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      <path d="M3 6h18" />
      <path d="M8 6V4a2 2 0 0 1 2-2h4a2 2 0 0 1 2 2v2" />
      <path d="M19 6l-1 14a2 2 0 0 1-2 2H8a2 2 0 0 1-2-2L5 6" />
      <path d="M10 11v6" />
      <path d="M14 11v6" />
    </svg>
  );
}
