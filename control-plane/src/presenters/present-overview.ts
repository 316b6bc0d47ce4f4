import type { AutoStopDayJson, CohortProjectsJson, DiskSeriesJson, OverviewAutoStopsJson, OverviewServerJson } from '@devplein/contract/overview';
import type { HostSampleRow } from '../queries/overview.ts';

/** The label of projects whose first member has no group, as on the websites wall. */
export const NO_COHORT = 'Niet ingedeeld';

const round = (value: number, digits: number): number => Number(value.toFixed(digits));

/**
 * One dev server's samples (oldest first) as chart columns, and its containers by state at the
 * latest sample that had them. Load per core: the 1-minute load average ÷ cores (HostStats has
 * no CPU percentage).
 */
export function presentOverviewServer(link: { name: string; siteDomain: string }, samples: readonly HostSampleRow[]): OverviewServerJson {
  const diskNames = [...new Set(samples.flatMap((sample) => sample.disks.map((disk) => disk.name)))];
  const disks: DiskSeriesJson[] = diskNames.map((name) => ({ name, totalBytes: [], availableBytes: [] }));
  const series: OverviewServerJson['series'] = { times: [], loadPerCore: [], memoryUsedBytes: [], memoryTotalBytes: [], disks };
  for (const sample of samples) {
    series.times.push(Math.round(sample.sampledAt.getTime() / 1000));
    series.loadPerCore.push(sample.load1m !== null && sample.cpuCores ? round(sample.load1m / sample.cpuCores, 3) : null);
    const { memoryTotalBytes: total, memoryAvailableBytes: available } = sample;
    series.memoryTotalBytes.push(total);
    series.memoryUsedBytes.push(total !== null && available !== null ? Math.max(0, total - available) : null);
    for (const disk of disks) {
      const measured = sample.disks.find((each) => each.name === disk.name);
      disk.totalBytes.push(measured ? measured.totalBytes : null);
      disk.availableBytes.push(measured ? measured.availableBytes : null);
    }
  }
  const latest = [...samples].reverse().find((sample) => sample.containers !== null);
  return {
    name: link.name,
    siteDomain: link.siteDomain,
    containersNow: latest
      ? { sampledAt: latest.sampledAt.toISOString(), byState: latest.containers ?? {}, managedByState: latest.managedContainers ?? {} }
      : null,
    series,
  };
}

/** Every day of the window (oldest first) with its counts, the days without stops included. */
export function presentAutoStopDays(dates: readonly string[], counts: ReadonlyArray<{ date: string; host: string; count: number }>): OverviewAutoStopsJson {
  const byDate = new Map<string, AutoStopDayJson>(dates.map((date) => [date, { date, total: 0, byHost: {} }]));
  const hosts = new Set<string>();
  let total = 0;
  for (const { date, host, count } of counts) {
    const day = byDate.get(date);
    if (!day) continue;
    day.byHost[host] = (day.byHost[host] ?? 0) + count;
    day.total += count;
    total += count;
    hosts.add(host);
  }
  return { days: [...byDate.values()], hosts: [...hosts].sort(), total };
}

export function presentCohortProjects(rows: ReadonlyArray<{ cohort: string | null; approved: number; notApproved: number }>): CohortProjectsJson[] {
  return rows.map((row) => ({ cohort: row.cohort ?? NO_COHORT, approved: row.approved, notApproved: row.notApproved }));
}
