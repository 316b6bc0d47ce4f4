import {
  actionLabel,
  diffLines,
  kindLabel,
  subjectLabel,
  type AuditEntry,
  type AuditFacets,
  type AuditFilters,
  type AuditPage,
} from '../../api/queries/audit.ts';
import { AsyncContent } from '../../components/AsyncContent.tsx';
import { DataTable } from '../../components/DataTable.tsx';

const dateTime = new Intl.DateTimeFormat('nl-NL', { dateStyle: 'medium', timeStyle: 'short' });

/** Voor/Na as short lines: 'status: open → success'; a new value alone for created records. */
function Diff({ entry }: { entry: AuditEntry }) {
  const lines = diffLines(entry.before, entry.after);
  if (lines.length === 0) return <span className="muted">—</span>;
  return (
    <ul className="audit-diff">
      {lines.map((line) => (
        <li key={line.key}>
          <span className="audit-diff-key">{line.key}:</span>{' '}
          {line.before !== undefined && <del className="audit-diff-before">{line.before}</del>}
          {line.before !== undefined && line.after !== undefined && <span aria-hidden="true"> → </span>}
          {line.after !== undefined && <ins className="audit-diff-after">{line.after}</ins>}
        </li>
      ))}
    </ul>
  );
}

/**
 * The audit trail: filters (Persoon, Soort), the table Wanneer / Wie / Wat / Onderwerp / Voor/Na,
 * and Vorige/Volgende paging. Nothing here changes an entry.
 */
export function AdminAuditPageView({
  filters,
  page,
  facets,
  failed,
  loading,
  onChange,
}: {
  filters: AuditFilters;
  page: AuditPage | undefined;
  facets: AuditFacets | undefined;
  failed: boolean;
  loading: boolean;
  onChange: (filters: AuditFilters) => void;
}) {
  const filtered = filters.actor !== undefined || filters.kind !== undefined;
  const pages = page ? Math.max(1, Math.ceil(page.total / page.per_page)) : 1;
  const actors = facets?.actors ?? [];
  const kinds = facets?.kinds ?? [];
  // Keep the chosen filter selectable even before (or without) the choices arriving.
  const actorChoices = filters.actor !== undefined && !actors.some((actor) => actor.id === filters.actor)
    ? [...actors, { id: filters.actor, name: `Gebruiker #${filters.actor}` }]
    : actors;
  const kindChoices = filters.kind !== undefined && !kinds.includes(filters.kind) ? [...kinds, filters.kind] : kinds;

  return (
    <div className="page admin-page">
      <header className="admin-page-header">
        <h1>Logboek</h1>
      </header>
      <p className="admin-lead">Alles wat beheerders wijzigen, nieuwste eerst. Het logboek zelf kan niemand aanpassen.</p>

      <form className="card audit-filters" role="search" onSubmit={(event) => event.preventDefault()}>
        <label className="field">
          <span className="field-label">Persoon</span>
          <select
            data-testid="audit-actor"
            value={filters.actor ?? ''}
            onChange={(event) =>
              onChange({ page: 1, kind: filters.kind, actor: event.target.value === '' ? undefined : Number(event.target.value) })
            }
          >
            <option value="">Iedereen</option>
            {actorChoices.map((actor) => (
              <option key={actor.id} value={actor.id}>
                {actor.name}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span className="field-label">Soort</span>
          <select
            data-testid="audit-kind"
            value={filters.kind ?? ''}
            onChange={(event) =>
              onChange({ page: 1, actor: filters.actor, kind: event.target.value === '' ? undefined : event.target.value })
            }
          >
            <option value="">Alles</option>
            {kindChoices.map((kind) => (
              <option key={kind} value={kind}>
                {kind.includes('.') ? actionLabel(kind) : kindLabel(kind)}
              </option>
            ))}
          </select>
        </label>
        {filtered && (
          <button type="button" className="button button-secondary button-small audit-clear" onClick={() => onChange({ page: 1 })}>
            Filters wissen
          </button>
        )}
      </form>

      <AsyncContent
        data={page}
        failed={failed}
        loading={loading}
        errorText="Het logboek kon niet worden geladen. Probeer het later opnieuw."
        loadingText="Logboek laden…"
        empty={filtered ? 'Geen acties gevonden met deze filters.' : 'Er staan nog geen acties in het logboek.'}
        isEmpty={(page) => page.data.length === 0}
        emptyTestId="audit-empty"
      >
        {(page) => (
          <DataTable
            columns={[
              { header: 'Wanneer' },
              { header: 'Wie' },
              { header: 'Wat' },
              { header: 'Onderwerp' },
              { header: 'Voor/Na' },
            ]}
            rows={page.data}
            className="audit-table"
            testId="audit-table"
            renderRow={(entry) => (
              <tr key={entry.id} data-testid="audit-row">
                <td className="audit-when" data-label="Wanneer">
                  <time dateTime={entry.created_at}>{dateTime.format(new Date(entry.created_at))}</time>
                </td>
                <td data-label="Wie">{entry.actor ? entry.actor.name : <span className="muted">Verwijderde gebruiker</span>}</td>
                <td data-label="Wat">
                  <span className="audit-action" title={entry.action}>
                    {actionLabel(entry.action)}
                  </span>
                </td>
                <td data-label="Onderwerp">{subjectLabel(entry)}</td>
                <td data-label="Voor/Na">
                  <Diff entry={entry} />
                </td>
              </tr>
            )}
          />
        )}
      </AsyncContent>

      {page !== undefined && page.total > 0 && (
        <nav className="audit-pager" aria-label="Pagina's">
          <button
            type="button"
            className="button button-secondary button-small"
            disabled={filters.page <= 1}
            onClick={() => onChange({ ...filters, page: filters.page - 1 })}
          >
            Vorige
          </button>
          <span className="muted" data-testid="audit-page-info">
            Pagina {filters.page} van {pages} · {page.total} {page.total === 1 ? 'actie' : 'acties'}
          </span>
          <button
            type="button"
            className="button button-secondary button-small"
            disabled={filters.page >= pages}
            onClick={() => onChange({ ...filters, page: filters.page + 1 })}
          >
            Volgende
          </button>
        </nav>
      )}
    </div>
  );
}
