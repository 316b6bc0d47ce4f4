import { useId } from 'react';
import type { AdminDockerColumn } from '../../api/queries/adminDockers.ts';
import { AdminDockerRow } from './AdminDockerRow.tsx';
import type { AdminDockersPageViewProps } from './AdminDockersPageView.tsx';

const COLUMNS: Array<{ column: AdminDockerColumn; label: string }> = [
  { column: 'name', label: 'Naam' },
  { column: 'user', label: 'Gebruiker' },
  { column: 'image', label: 'Type' },
  { column: 'status', label: 'Status' },
];

/** The table: sortable column heads, a filter row, and one row per container (or why there are none). */
export function AdminDockersTable(props: AdminDockersPageViewProps) {
  const { rows, total, filters, sort, selected } = props;
  const ids = useId();
  const visibleNames = rows.map((row) => row.name);
  const allVisibleSelected = visibleNames.length > 0 && visibleNames.every((name) => selected.has(name));
  return (
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
  );
}

const busyOf = (props: AdminDockersPageViewProps, name: string) => props.busy.has(name) || (props.bulkBusy && props.selected.has(name));
