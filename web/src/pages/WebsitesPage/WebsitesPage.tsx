import { useDeferredValue, useMemo, useState } from 'react';
import { preloadSitesOn, useSites } from '../../api/queries/sites.ts';
import { useCurrentUser } from '../../api/queries/user.ts';
import { WebsitesPageView } from './WebsitesPageView.tsx';
import { ALL_COHORTS, cohortsOf, filterWall, groupByCohort, ownSites, prepareWall, type CohortFilter } from './wall.ts';
import '../../styles/websites.css';

// This module loads with the app: on a direct visit of /websites the list loads alongside the user.
if (typeof window !== 'undefined') preloadSitesOn(window.location.pathname);

/**
 * Websites (/websites, public): every visible student project, grouped by cohort (spec §2).
 * The list is prepared once per load; filtering runs on a deferred search term so typing stays
 * smooth with 1,500 sites.
 */
export function WebsitesPage() {
  const { data, error, isLoading, mutate } = useSites();
  const { user } = useCurrentUser();
  const [cohort, setCohort] = useState<CohortFilter>(ALL_COHORTS);
  const [search, setSearch] = useState('');
  const deferredSearch = useDeferredValue(search);

  const wall = useMemo(() => prepareWall(data ?? []), [data]);
  const cohorts = useMemo(() => cohortsOf(wall), [wall]);
  const mine = useMemo(() => ownSites(wall, user?.id ?? null), [wall, user]);
  const blocks = useMemo(() => groupByCohort(filterWall(wall, cohort, deferredSearch)), [wall, cohort, deferredSearch]);

  return (
    <WebsitesPageView
      state={error !== undefined && data === undefined ? 'error' : isLoading || data === undefined ? 'loading' : 'ready'}
      total={wall.length}
      ownSites={mine}
      cohorts={cohorts}
      cohort={cohort}
      onCohortChange={setCohort}
      search={search}
      onSearchChange={setSearch}
      blocks={blocks}
      searching={search !== deferredSearch}
      onRetry={() => void mutate()}
    />
  );
}
