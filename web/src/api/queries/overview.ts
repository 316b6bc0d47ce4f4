import useSWR from 'swr';
import { apiFetcher } from '../client.ts';
import { TOP_CONTAINERS_REFRESH_SECONDS, type OverviewAutoStopsJson, type OverviewCohortsJson, type OverviewHostsJson, type OverviewTopContainersJson } from '@devplein/contract/overview';

/*
 * The teachers' overview (/admin/overzicht): host samples of the last 24 hours, idle auto-stops of
 * the last 30 days and projects per cohort. The samples come once a minute, so the page asks again
 * every minute while it is open.
 */

export const OVERVIEW_HOSTS_KEY = '/api/admin/overview/hosts?hours=24';
export const OVERVIEW_AUTO_STOPS_KEY = '/api/admin/overview/auto-stops?days=30';
export const OVERVIEW_COHORTS_KEY = '/api/admin/overview/cohorts';
export const OVERVIEW_REFRESH_MS = 60_000;

const options = { refreshInterval: OVERVIEW_REFRESH_MS, keepPreviousData: true };

export const useOverviewHosts = () => useSWR<OverviewHostsJson>(OVERVIEW_HOSTS_KEY, apiFetcher<OverviewHostsJson>, options);
export const useOverviewAutoStops = () => useSWR<OverviewAutoStopsJson>(OVERVIEW_AUTO_STOPS_KEY, apiFetcher<OverviewAutoStopsJson>, options);
/** The top containers are live (a sweep of the agent, kept 15 s there): asked again every 15 s. */
export const OVERVIEW_TOP_CONTAINERS_KEY = '/api/admin/overview/top-containers';
export const useOverviewTopContainers = () =>
  useSWR<OverviewTopContainersJson>(OVERVIEW_TOP_CONTAINERS_KEY, apiFetcher<OverviewTopContainersJson>, { refreshInterval: TOP_CONTAINERS_REFRESH_SECONDS * 1000, keepPreviousData: true });
export const useOverviewCohorts = () => useSWR<OverviewCohortsJson>(OVERVIEW_COHORTS_KEY, apiFetcher<OverviewCohortsJson>, options);

/** Summary of a series for its text alternative: the latest, lowest, average and highest value (nulls skipped). */
export function seriesSummary(values: ReadonlyArray<number | null>): { latest: number | null; min: number | null; average: number | null; max: number | null } {
  const present = values.filter((value): value is number => value !== null);
  if (present.length === 0) return { latest: null, min: null, average: null, max: null };
  return {
    latest: present.at(-1) ?? null,
    min: Math.min(...present),
    average: present.reduce((sum, value) => sum + value, 0) / present.length,
    max: Math.max(...present),
  };
}
