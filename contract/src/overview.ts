/**
 * The teachers' overview (/admin/overzicht, issue 22): the JSON of its three GET routes and the
 * limits both ends use. Series are columns (one array per measure, `times` in Unix seconds), the
 * shape a time-series chart draws from without copying.
 */
import { z } from 'zod';

/** Hours of host samples one request may ask for (the table keeps 7 days). */
export const OVERVIEW_MAX_HOURS = 168;
export const OVERVIEW_DEFAULT_HOURS = 24;
/** Days of idle auto-stops one request may ask for (the table keeps 31). */
export const OVERVIEW_MAX_DAYS = 31;
export const OVERVIEW_DEFAULT_DAYS = 30;
/** Seconds between two samples of one dev server. */
export const SAMPLE_RESOLUTION_SECONDS = 60;

/** One mount's free space over time (bytes; null where a sample had no figure for it). */
export const diskSeriesJson = z.strictObject({
  /** What the mount holds: 'docker' (the Docker data root) or 'agent' (the agent's data dir). */
  name: z.string(),
  totalBytes: z.array(z.number().nullable()),
  availableBytes: z.array(z.number().nullable()),
});
export type DiskSeriesJson = z.infer<typeof diskSeriesJson>;

/** One dev server's samples in the window, oldest first, one entry per minute that was sampled. */
export const hostSeriesJson = z.strictObject({
  /** Unix seconds of each sample. */
  times: z.array(z.number().int()),
  /** Load average over 1 minute divided by the number of cores (1 = every core busy); not a CPU percentage. */
  loadPerCore: z.array(z.number().nullable()),
  memoryUsedBytes: z.array(z.number().nullable()),
  memoryTotalBytes: z.array(z.number().nullable()),
  disks: z.array(diskSeriesJson),
});
export type HostSeriesJson = z.infer<typeof hostSeriesJson>;

/** Containers by Docker's state word at the latest sample. */
export const containersNowJson = z.strictObject({
  /** When the sample was taken (ISO 8601). */
  sampledAt: z.iso.datetime({ offset: true }),
  /** Every container on the engine. */
  byState: z.record(z.string(), z.number().int()),
  /** The containers devplein manages (the students' projects). */
  managedByState: z.record(z.string(), z.number().int()),
});
export type ContainersNowJson = z.infer<typeof containersNowJson>;

export const overviewServerJson = z.strictObject({
  name: z.string(),
  siteDomain: z.string(),
  /** null: no sample with container counts in the window (the agent did not answer, or no sample yet). */
  containersNow: containersNowJson.nullable(),
  series: hostSeriesJson,
});
export type OverviewServerJson = z.infer<typeof overviewServerJson>;

/** GET /api/admin/overview/hosts?hours=24 */
export const overviewHostsJson = z.strictObject({
  /** The window asked for (ISO 8601). */
  from: z.iso.datetime({ offset: true }),
  to: z.iso.datetime({ offset: true }),
  resolutionSeconds: z.number().int(),
  servers: z.array(overviewServerJson),
});
export type OverviewHostsJson = z.infer<typeof overviewHostsJson>;

/** One calendar day (Europe/Amsterdam) of idle auto-stops. */
export const autoStopDayJson = z.strictObject({
  /** YYYY-MM-DD. */
  date: z.string(),
  total: z.number().int(),
  /** Per dev server name; servers without stops that day are absent. */
  byHost: z.record(z.string(), z.number().int()),
});
export type AutoStopDayJson = z.infer<typeof autoStopDayJson>;

/** GET /api/admin/overview/auto-stops?days=30: every day of the window, oldest first, also the days without stops. */
export const overviewAutoStopsJson = z.strictObject({
  days: z.array(autoStopDayJson),
  /** The dev servers that appear in `byHost` anywhere in the window, by name. */
  hosts: z.array(z.string()),
  total: z.number().int(),
});
export type OverviewAutoStopsJson = z.infer<typeof overviewAutoStopsJson>;

/** Projects of one cohort (a project counts for the cohort of its first member, as on the websites wall). */
export const cohortProjectsJson = z.strictObject({
  /** The cohort, or 'Niet ingedeeld' for projects whose first member has no group (or no members). */
  cohort: z.string(),
  approved: z.number().int(),
  /** Awaiting approval or rejected. */
  notApproved: z.number().int(),
});
export type CohortProjectsJson = z.infer<typeof cohortProjectsJson>;

/** GET /api/admin/overview/cohorts */
export const overviewCohortsJson = z.strictObject({
  cohorts: z.array(cohortProjectsJson),
});
export type OverviewCohortsJson = z.infer<typeof overviewCohortsJson>;

/** Containers in each top list of GET /api/admin/overview/top-containers. */
export const TOP_CONTAINERS_LIMIT = 10;
/** Seconds between two refreshes of the top lists (the agent keeps one sweep this long, however many pages ask). */
export const TOP_CONTAINERS_REFRESH_SECONDS = 15;

/** One running container in a top list, with the project it hosts when devplein knows it. */
export const topContainerJson = z.strictObject({
  /** The container's name (the project's name for project containers). */
  name: z.string(),
  /** null: no project of devplein has this container (e.g. a project removed since). */
  project: z.strictObject({ id: z.number().int(), name: z.string(), domain: z.string() }).nullable(),
  /** The project's first member (its owner); null when unknown. */
  owner: z.strictObject({ id: z.number().int(), name: z.string() }).nullable(),
  /** Percent of one CPU, as `docker stats` (200 = two CPUs fully busy). */
  cpuPercent: z.number(),
  /** Memory in use as `docker stats` shows it (usage minus inactive page cache). */
  memoryUsedBytes: z.number(),
  /** The container's memory limit. */
  memoryLimitBytes: z.number(),
});
export type TopContainerJson = z.infer<typeof topContainerJson>;

/** One dev server's top containers right now. */
export const serverTopContainersJson = z.strictObject({
  name: z.string(),
  /**
   * 'ok'; 'unavailable': the agent did not answer (the lists are empty); 'too-old': its agent
   * predates contract 1.6.0 and cannot report this.
   */
  status: z.enum(['ok', 'unavailable', 'too-old']),
  /** When the agent sampled (ISO 8601); null unless ok. */
  sampledAt: z.iso.datetime({ offset: true }).nullable(),
  /** Running project containers on the server (the lists hold at most TOP_CONTAINERS_LIMIT of them). */
  running: z.number().int(),
  /** Most CPU first. */
  byCpu: z.array(topContainerJson),
  /** Most memory first. */
  byMemory: z.array(topContainerJson),
});
export type ServerTopContainersJson = z.infer<typeof serverTopContainersJson>;

/** GET /api/admin/overview/top-containers: per linked dev server, in the links' order. */
export const overviewTopContainersJson = z.strictObject({
  servers: z.array(serverTopContainersJson),
});
export type OverviewTopContainersJson = z.infer<typeof overviewTopContainersJson>;
