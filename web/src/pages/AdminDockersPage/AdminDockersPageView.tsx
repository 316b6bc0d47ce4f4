import { memo, useId } from 'react';
import { Link } from 'react-router-dom';
import {
  ADMIN_ACTION_LABELS,
  NO_OWNER,
  adminActionsFor,
  dutchDateTime,
  screenshotText,
  type AdminContainerAction,
  type AdminDockerColumn,
  type AdminDockerFilters,
  type AdminDockerSort,
  type IndexedAdminDocker,
  type ScreenshotState,
} from '../../api/queries/adminDockers.ts';
import type { UserSearchHit } from '../../api/queries/userSearch.ts';
import { UserSearch } from '../../components/UserSearch.tsx';
import { pathTo } from '../../routePaths.ts';
import '../../styles/admin-levels.css';
import '../../styles/dockers.css';
import './admin-dockers-screenshots.css';

/** A row's last outcome (a bulk action or a failed row action), shown under its status. */
export interface RowResult {
  ok: boolean;
  text: string;
}

export interface AdminDockersPageViewProps {
  loading: boolean;
  /** Why the list is missing: the 503 notice or another Dutch failure text. */
  loadError: { text: string; unavailable: boolean } | null;
  onReload: () => void;
  /** All containers (for the count) and the rows the filters let through, sorted. */
  total: number;
  rows: readonly IndexedAdminDocker[];
  /** With more than one dev server, each name says which one its container is on. */
  showHost: boolean;
  filters: AdminDockerFilters;
  onFilterChange: (column: AdminDockerColumn, value: string) => void;
  sort: AdminDockerSort;
  onSort: (column: AdminDockerColumn) => void;
  selected: ReadonlySet<string>;
  onToggleSelect: (name: string) => void;
  onSelectAll: (names: string[], checked: boolean) => void;
  busy: ReadonlySet<string>;
  results: ReadonlyMap<string, RowResult>;
  /** The line above the table after an action ('… is gestart.', a bulk summary, a 503). */
  message: RowResult | null;
  bulkBusy: boolean;
  onBulk: (action: 'start' | 'stop') => void;
  onAction: (name: string, action: AdminContainerAction) => void;
  confirmingDelete: string | null;
  onAskDelete: (name: string | null) => void;
  onConfirmDelete: (name: string) => void;
  pickingOwner: string | null;
  onPickOwner: (name: string | null) => void;
  onOwnerPicked: (name: string, user: UserSearchHit) => void;
  /** Containers whose 'ververs screenshot' is being sent or awaited. */
  screenshotBusy: ReadonlySet<string>;
  onScreenshot: (name: string, projectId: number) => void;
}

const COLUMNS: Array<{ column: AdminDockerColumn; label: string }> = [
  { column: 'name', label: 'Naam' },
  { column: 'user', label: 'Gebruiker' },
  { column: 'image', label: 'Type' },
  { column: 'status', label: 'Status' },
];

/**
 * Spec §2 admin Dockers: every container in a table with sortable, filterable columns Naam,
 * Gebruiker, Type, Status and Opties; actions per status (§4), delete, owner picking for
 * 'NO OWNER', and start/stop for the selected rows. Beyond the spec: a Screenshot column with
 * when the site was last captured, why the last capture failed, and 'ververs screenshot'.
 */
export function AdminDockersPageView(props: AdminDockersPageViewProps) {
  const { loading, loadError, rows, total, filters, sort, selected, message } = props;
  const ids = useId();
  const visibleNames = rows.map((row) => row.name);
  const allVisibleSelected = visibleNames.length > 0 && visibleNames.every((name) => selected.has(name));

  return (
    <div className="page admin-page admin-dockers-page">
      <header className="admin-page-header">
        <h1>Dockers</h1>
        <Link className="button button-secondary button-small" to={pathTo('adminDockerImages')}>
          Image-opties beheren
        </Link>
      </header>

      {loadError !== null ? (
        <div className={loadError.unavailable ? 'card admin-dockers-notice' : 'card admin-dockers-notice error-text'} role="alert">
          <p>{loadError.text}</p>
          <button type="button" className="button button-secondary button-small" onClick={props.onReload}>
            Opnieuw proberen
          </button>
        </div>
      ) : loading ? (
        <p className="page-message" role="status">
          Dockers laden…
        </p>
      ) : (
        <>
          <div className="admin-dockers-toolbar">
            <span className="docker-selection-count">
              {selected.size === 0 ? `${rows.length} van ${total} dockers` : `${selected.size} geselecteerd`}
            </span>
            <button
              type="button"
              className="button button-primary button-small"
              disabled={selected.size === 0 || props.bulkBusy}
              onClick={() => props.onBulk('start')}
            >
              Start geselecteerde
            </button>
            <button
              type="button"
              className="button button-secondary button-small"
              disabled={selected.size === 0 || props.bulkBusy}
              onClick={() => props.onBulk('stop')}
            >
              Stop geselecteerde
            </button>
          </div>

          <div aria-live="polite">
            {message !== null && (
              <p className={message.ok ? 'card admin-dockers-message' : 'card admin-dockers-message error-text'} role={message.ok ? 'status' : 'alert'}>
                {message.text}
              </p>
            )}
          </div>

          <div className="card table-card">
            <div className="table-scroll">
              <table className="data-table docker-table">
                <thead>
                  <tr>
                    <th className="select-column" scope="col">
                      <input
                        type="checkbox"
                        aria-label="Alle zichtbare dockers selecteren"
                        checked={allVisibleSelected}
                        disabled={visibleNames.length === 0}
                        onChange={(event) => props.onSelectAll(visibleNames, event.target.checked)}
                      />
                    </th>
                    {COLUMNS.map(({ column, label }) => (
                      <th
                        key={column}
                        scope="col"
                        aria-sort={sort.column === column ? (sort.direction === 'asc' ? 'ascending' : 'descending') : 'none'}
                      >
                        <button type="button" className="sort-button" onClick={() => props.onSort(column)}>
                          {label}
                          <span className="sort-mark" aria-hidden="true">
                            {sort.column === column ? (sort.direction === 'asc' ? '▲' : '▼') : '↕'}
                          </span>
                        </button>
                      </th>
                    ))}
                    <th scope="col" className="screenshot-column">
                      Screenshot
                    </th>
                    <th scope="col" className="options-column">
                      Opties
                    </th>
                  </tr>
                  <tr className="filter-row">
                    <th />
                    {COLUMNS.map(({ column, label }) => (
                      <th key={column}>
                        <input
                          id={`${ids}-${column}`}
                          type="search"
                          aria-label={`Filter op ${label}`}
                          placeholder="Filter…"
                          autoComplete="off"
                          value={filters[column]}
                          onChange={(event) => props.onFilterChange(column, event.target.value)}
                        />
                      </th>
                    ))}
                    <th />
                    <th />
                  </tr>
                </thead>
                <tbody>
                  {rows.length === 0 ? (
                    <tr>
                      <td colSpan={7} className="muted">
                        {total === 0 ? 'Er draaien geen dockers op de dockerserver.' : 'Geen dockers met deze filters.'}
                      </td>
                    </tr>
                  ) : (
                    rows.map((row) => (
                      <AdminDockerRow
                        key={row.docker.Id}
                        row={row}
                        selected={selected.has(row.name)}
                        busy={busyOf(props, row.name)}
                        result={props.results.get(row.name)}
                        confirming={props.confirmingDelete === row.name}
                        picking={props.pickingOwner === row.name}
                        onToggleSelect={props.onToggleSelect}
                        onAction={props.onAction}
                        onAskDelete={props.onAskDelete}
                        onConfirmDelete={props.onConfirmDelete}
                        onPickOwner={props.onPickOwner}
                        onOwnerPicked={props.onOwnerPicked}
                        screenshotBusy={props.screenshotBusy.has(row.name)}
                        onScreenshot={props.onScreenshot}
                        showHost={props.showHost}
                      />
                    ))
                  )}
                </tbody>
              </table>
            </div>
          </div>
        </>
      )}
    </div>
  );
}

const busyOf = (props: AdminDockersPageViewProps, name: string) => props.busy.has(name) || (props.bulkBusy && props.selected.has(name));

interface AdminDockerRowProps {
  row: IndexedAdminDocker;
  selected: boolean;
  busy: boolean;
  result: RowResult | undefined;
  confirming: boolean;
  picking: boolean;
  onToggleSelect: (name: string) => void;
  onAction: (name: string, action: AdminContainerAction) => void;
  onAskDelete: (name: string | null) => void;
  onConfirmDelete: (name: string) => void;
  onPickOwner: (name: string | null) => void;
  onOwnerPicked: (name: string, user: UserSearchHit) => void;
  screenshotBusy: boolean;
  onScreenshot: (name: string, projectId: number) => void;
  showHost: boolean;
}

/** One container; memoised so typing in a filter re-renders only the rows that change. */
const AdminDockerRow = memo(function AdminDockerRow(props: AdminDockerRowProps) {
  const { row, selected, busy, result, confirming, picking } = props;
  const { docker, name } = row;
  const actions = adminActionsFor(docker.Status);
  return (
    <tr data-testid="admin-docker-row" data-docker={name} className={busy ? 'row-busy' : undefined} aria-busy={busy}>
      <td className="select-column">
        <input type="checkbox" aria-label={`${name} selecteren`} checked={selected} onChange={() => props.onToggleSelect(name)} />
      </td>
      <td className="docker-name">
        {name}
        {props.showHost && docker.host && (
          <span className="docker-host muted" data-testid="docker-host">
            op {docker.host}
          </span>
        )}
      </td>
      <td>
        {docker.user === NO_OWNER ? (
          <>
            <button
              type="button"
              className="no-owner-button"
              aria-expanded={picking}
              aria-label={`Eigenaar kiezen voor ${name}`}
              onClick={() => props.onPickOwner(picking ? null : name)}
            >
              {NO_OWNER}
            </button>
            {picking && (
              <div className="owner-picker">
                <UserSearch
                  label={`Eigenaar voor ${name}`}
                  placeholder="zoek eigenaar"
                  all
                  disabled={busy}
                  onPick={(user) => props.onOwnerPicked(name, user)}
                />
              </div>
            )}
          </>
        ) : (
          docker.user
        )}
      </td>
      <td className="docker-image">{docker.Image}</td>
      <td className="status-column">
        <span className="docker-row-status">{docker.Status}</span>
        {docker.State === 'exited' && docker.autoStop && (
          <span className="row-result muted" data-testid="auto-stop">
            automatisch gestopt op {dutchDateTime(docker.autoStop.stoppedAt)}: geen bezoekers
          </span>
        )}
        {result !== undefined && (
          <span className={result.ok ? 'row-result row-result-ok' : 'row-result row-result-failed'} data-testid="row-result">
            {result.text}
          </span>
        )}
      </td>
      <td className="screenshot-column" data-testid="screenshot-cell">
        {docker.projectId === null ? (
          <span className="muted">geen project</span>
        ) : (
          <ScreenshotCell
            name={name}
            projectId={docker.projectId}
            screenshot={docker.screenshot ?? null}
            busy={props.screenshotBusy || docker.screenshot?.inFlight === true}
            onScreenshot={props.onScreenshot}
          />
        )}
      </td>
      <td className="options-column">
        {confirming ? (
          <div className="row-actions" role="group" aria-label={`Verwijderen van ${name} bevestigen`}>
            <span>Zeker?</span>
            <button type="button" className="button button-danger button-small" disabled={busy} onClick={() => props.onConfirmDelete(name)}>
              Ja, verwijder
            </button>
            <button type="button" className="button button-secondary button-small" onClick={() => props.onAskDelete(null)}>
              Nee
            </button>
          </div>
        ) : (
          <div className="row-actions">
            {actions.map((action) => (
              <button
                key={action}
                type="button"
                className="button button-secondary button-small"
                disabled={busy}
                aria-label={`${ADMIN_ACTION_LABELS[action]} ${name}`}
                onClick={() => props.onAction(name, action)}
              >
                {ADMIN_ACTION_LABELS[action]}
              </button>
            ))}
            <button
              type="button"
              className="button button-danger button-small"
              disabled={busy}
              aria-label={`Verwijder ${name}`}
              onClick={() => props.onAskDelete(name)}
            >
              Verwijder
            </button>
          </div>
        )}
      </td>
    </tr>
  );
});

/** When the site was last captured, why the last capture failed (if it did), and 'ververs screenshot'. */
function ScreenshotCell(props: {
  name: string;
  projectId: number;
  screenshot: ScreenshotState | null;
  busy: boolean;
  onScreenshot: (name: string, projectId: number) => void;
}) {
  const { name, projectId, screenshot, busy } = props;
  return (
    <div className="screenshot-state">
      <span className="screenshot-when" title={screenshotText(screenshot)}>
        {screenshot?.capturedAt ? (
          <>
            laatste screenshot: <time dateTime={screenshot.capturedAt}>{dutchDateTime(screenshot.capturedAt)}</time>
          </>
        ) : (
          screenshotText(screenshot)
        )}
      </span>
      {screenshot?.lastError ? (
        <span className="row-result row-result-failed screenshot-error" data-testid="screenshot-error">
          {screenshot.lastError}
        </span>
      ) : null}
      <button
        type="button"
        className="button button-secondary button-small"
        disabled={busy}
        aria-label={busy ? `Screenshot van ${name} wordt gemaakt` : `ververs screenshot van ${name}`}
        onClick={() => props.onScreenshot(name, projectId)}
      >
        {busy ? 'bezig…' : 'ververs screenshot'}
      </button>
    </div>
  );
}
