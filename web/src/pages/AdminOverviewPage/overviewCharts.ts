import type { OverviewAutoStopsJson, OverviewCohortsJson, OverviewServerJson } from '@devplein/contract/overview';
import { formatNumber, type ChartSpec } from '../../components/charts/chartSpec.ts';
import { CONTAINER_STATE_LABELS } from '../../api/queries/status.ts';

/*
 * The overview's charts as ChartSpecs (no chart library here): the page's text alternatives and
 * the charts read the same numbers.
 */

const STATE_COLOURS: Readonly<Record<string, string>> = {
  running: '#16a34a',
  paused: '#f59e0b',
  restarting: '#ea580c',
  created: '#3b82f6',
  exited: '#94a3b8',
  dead: '#dc2626',
  removing: '#a855f7',
};
const OTHER_COLOURS = ['#0ea5e9', '#f43f5e', '#84cc16', '#6366f1', '#14b8a6', '#eab308'];
const HOST_COLOURS = ['#2563eb', '#db2777', '#059669', '#d97706', '#7c3aed', '#0891b2'];

const GB = 1e9;
const gigabytes = (value: number | null): number | null => (value === null ? null : value / GB);
export const formatGb = (value: number): string => `${formatNumber(Math.round(value * 10) / 10)} GB`;

const stateLabels = new Map(CONTAINER_STATE_LABELS);
export const stateLabel = (state: string): string => stateLabels.get(state) ?? state;

/** The states of the given counts, in the status page's order, unknown states after. */
export function statesOf(counts: ReadonlyArray<Record<string, number>>): string[] {
  const present = new Set(counts.flatMap((byState) => Object.keys(byState).filter((state) => (byState[state] ?? 0) > 0)));
  const known = CONTAINER_STATE_LABELS.map(([state]) => state).filter((state) => present.has(state));
  return [...known, ...[...present].filter((state) => !stateLabels.has(state)).sort()];
}

/** Containers per state now, one stacked bar per dev server (managed containers: the students'). */
export function containersNowChart(servers: readonly OverviewServerJson[]): ChartSpec {
  const counts = servers.map((server) => server.containersNow?.byState ?? {});
  const states = statesOf(counts);
  return {
    kind: 'bars',
    stacked: true,
    categories: servers.map((server) => server.name),
    series: states.map((state, index) => ({
      label: stateLabel(state),
      color: STATE_COLOURS[state] ?? OTHER_COLOURS[index % OTHER_COLOURS.length] ?? '#64748b',
      values: counts.map((byState) => byState[state] ?? 0),
    })),
    xLabel: 'Dev server',
    yLabel: 'Containers (aantal)',
    formatY: (value) => formatNumber(Math.round(value)),
    minYMax: 4,
  };
}

export function loadChart(server: OverviewServerJson): ChartSpec {
  return {
    kind: 'time',
    times: server.series.times,
    series: [{ label: 'Belasting per kern', color: '#2563eb', values: server.series.loadPerCore }],
    xLabel: 'Tijd (uu:mm)',
    yLabel: 'Load ÷ kernen',
    minYMax: 1,
  };
}

export function memoryChart(server: OverviewServerJson): ChartSpec {
  return {
    kind: 'time',
    times: server.series.times,
    series: [
      { label: 'In gebruik', color: '#db2777', values: server.series.memoryUsedBytes.map(gigabytes) },
      { label: 'Totaal', color: '#94a3b8', values: server.series.memoryTotalBytes.map(gigabytes) },
    ],
    xLabel: 'Tijd (uu:mm)',
    yLabel: 'Geheugen (GB)',
    formatY: formatGb,
  };
}

const DISK_LABELS: Readonly<Record<string, string>> = { docker: 'Vrij op de Docker-schijf', agent: 'Vrij op de agent-schijf' };
export const diskLabel = (name: string): string => DISK_LABELS[name] ?? `Vrij op ${name}`;

export function diskChart(server: OverviewServerJson): ChartSpec {
  return {
    kind: 'time',
    times: server.series.times,
    series: server.series.disks.map((disk, index) => ({ label: diskLabel(disk.name), color: HOST_COLOURS[index % HOST_COLOURS.length] ?? '#2563eb', values: disk.availableBytes.map(gigabytes) })),
    xLabel: 'Tijd (uu:mm)',
    yLabel: 'Vrije schijfruimte (GB)',
    formatY: formatGb,
  };
}

/** '27-11' of '2026-11-27'. */
export const shortDate = (date: string): string => `${date.slice(8, 10)}-${date.slice(5, 7)}`;

export function autoStopsChart(autoStops: OverviewAutoStopsJson): ChartSpec {
  const hosts = autoStops.hosts.length > 0 ? autoStops.hosts : ['—'];
  return {
    kind: 'bars',
    stacked: true,
    categories: autoStops.days.map((day) => shortDate(day.date)),
    series: hosts.map((host, index) => ({
      label: host,
      color: HOST_COLOURS[index % HOST_COLOURS.length] ?? '#2563eb',
      values: autoStops.days.map((day) => day.byHost[host] ?? 0),
    })),
    xLabel: 'Dag (dd-mm)',
    yLabel: 'Stops (aantal)',
    formatY: (value) => formatNumber(Math.round(value)),
    minYMax: 4,
  };
}

export function cohortsChart(cohorts: OverviewCohortsJson): ChartSpec {
  return {
    kind: 'bars',
    stacked: true,
    categories: cohorts.cohorts.map((row) => row.cohort),
    series: [
      { label: 'Goedgekeurd', color: '#16a34a', values: cohorts.cohorts.map((row) => row.approved) },
      { label: 'Niet (of nog niet) goedgekeurd', color: '#f59e0b', values: cohorts.cohorts.map((row) => row.notApproved) },
    ],
    xLabel: 'Klas',
    yLabel: 'Projecten (aantal)',
    formatY: (value) => formatNumber(Math.round(value)),
    minYMax: 4,
  };
}
