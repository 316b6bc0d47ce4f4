import { TOP_CONTAINERS_REFRESH_SECONDS } from '@devplein/contract/overview';
import { overviewAutoStops, overviewCohorts, overviewHosts, overviewTopContainers } from '@devplein/contract/http/admin-overview';
import { useEndpoint } from '../endpoints.ts';

/*
 * The teachers' overview (/admin/overzicht): host samples of the last 24 hours, idle auto-stops of
 * the last 30 days and projects per cohort. The samples come once a minute, so the page asks again
 * every minute while it is open.
 */

export const OVERVIEW_REFRESH_MS = 60_000;

const options = { refreshInterval: OVERVIEW_REFRESH_MS, keepPreviousData: true };

export const useOverviewHosts = () => useEndpoint(overviewHosts, { query: { hours: 24 } }, options);
export const useOverviewAutoStops = () => useEndpoint(overviewAutoStops, { query: { days: 30 } }, options);
/** The top containers are live (a sweep of the agent, kept 15 s there): asked again every 15 s. */
export const useOverviewTopContainers = () => useEndpoint(overviewTopContainers, {}, { refreshInterval: TOP_CONTAINERS_REFRESH_SECONDS * 1000, keepPreviousData: true });
export const useOverviewCohorts = () => useEndpoint(overviewCohorts, {}, options);

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
