import { useSearchParams } from 'react-router-dom';
import { useAuditFacets, useAuditPage, type AuditFilters } from '../../api/queries/audit.ts';
import { AdminAuditPageView } from './AdminAuditPageView.tsx';
import '../../styles/audit.css';

/** Reads the filters from the address (?page=&actor=&kind=), so a filtered page can be shared and reloaded. */
function filtersFrom(params: URLSearchParams): AuditFilters {
  const page = Number(params.get('page'));
  const actor = Number(params.get('actor'));
  const kind = params.get('kind');
  return {
    page: Number.isInteger(page) && page >= 1 ? page : 1,
    ...(Number.isInteger(actor) && actor >= 1 ? { actor } : {}),
    ...(kind ? { kind } : {}),
  };
}

/** /admin/audit: who did what, newest first, filterable by person and kind (beyond the spec, issue 4). */
export function AdminAuditPage() {
  const [params, setParams] = useSearchParams();
  const filters = filtersFrom(params);
  const { data, error, isLoading } = useAuditPage(filters);
  const facets = useAuditFacets();

  const change = (next: AuditFilters) => {
    const query = new URLSearchParams();
    if (next.page > 1) query.set('page', String(next.page));
    if (next.actor !== undefined) query.set('actor', String(next.actor));
    if (next.kind !== undefined) query.set('kind', next.kind);
    setParams(query);
  };

  return (
    <AdminAuditPageView
      filters={filters}
      page={data}
      facets={facets.data}
      failed={error !== undefined}
      loading={isLoading}
      onChange={change}
    />
  );
}
