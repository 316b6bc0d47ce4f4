/**
 * The teachers' overview (/admin/overzicht, issue 22): the JSON of its three GET routes and the
 * limits both ends use. Series are columns (one array per measure, `times` in Unix seconds), the
 * shape a time-series chart draws from without copying.
 */

/** Hours of host samples one request may ask for (the table keeps 7 days). */
export const OVERVIEW_MAX_HOURS = 168;
export const OVERVIEW_DEFAULT_HOURS = 24;
/** Days of idle auto-stops one request may ask for (the table keeps 31). */
export const OVERVIEW_MAX_DAYS = 31;
export const OVERVIEW_DEFAULT_DAYS = 30;
/** Seconds between two samples of one dev server. */
export const SAMPLE_RESOLUTION_SECONDS = 60;

/** One mount's free space over time (bytes; null where a sample had no figure for it). */
export interface DiskSeriesJson {
  /** What the mount holds: 'docker' (the Docker data root) or 'agent' (the agent's data dir). */
  name: string;
  totalBytes: Array<number | null>;
  availableBytes: Array<number | null>;
}

/** One dev server's samples in the window, oldest first, one entry per minute that was sampled. */
export interface HostSeriesJson {
  /** Unix seconds of each sample. */
  times: number[];
  /** Load average over 1 minute divided by the number of cores (1 = every core busy); not a CPU percentage. */
  loadPerCore: Array<number | null>;
  memoryUsedBytes: Array<number | null>;
  memoryTotalBytes: Array<number | null>;
  disks: DiskSeriesJson[];
}

/** Containers by Docker's state word at the latest sample. */
export interface ContainersNowJson {
  /** When the sample was taken (ISO 8601). */
  sampledAt: string;
  /** Every container on the engine. */
  byState: Record<string, number>;
  /** The containers devplein manages (the students' projects). */
  managedByState: Record<string, number>;
}

export interface OverviewServerJson {
  name: string;
  siteDomain: string;
  /** null: no sample with container counts in the window (the agent did not answer, or no sample yet). */
  containersNow: ContainersNowJson | null;
  series: HostSeriesJson;
}

/** GET /api/admin/overview/hosts?hours=24 */
export interface OverviewHostsJson {
  /** The window asked for (ISO 8601). */
  from: string;
  to: string;
  resolutionSeconds: number;
  servers: OverviewServerJson[];
}

/** One calendar day (Europe/Amsterdam) of idle auto-stops. */
export interface AutoStopDayJson {
  /** YYYY-MM-DD. */
  date: string;
  total: number;
  /** Per dev server name; servers without stops that day are absent. */
  byHost: Record<string, number>;
}

/** GET /api/admin/overview/auto-stops?days=30: every day of the window, oldest first, also the days without stops. */
export interface OverviewAutoStopsJson {
  days: AutoStopDayJson[];
  /** The dev servers that appear in `byHost` anywhere in the window, by name. */
  hosts: string[];
  total: number;
}

/** Projects of one cohort (a project counts for the cohort of its first member, as on the websites wall). */
export interface CohortProjectsJson {
  /** The cohort, or 'Niet ingedeeld' for projects whose first member has no group (or no members). */
  cohort: string;
  approved: number;
  /** Awaiting approval or rejected. */
  notApproved: number;
}

/** GET /api/admin/overview/cohorts */
export interface OverviewCohortsJson {
  cohorts: CohortProjectsJson[];
}

/** Containers in each top list of GET /api/admin/overview/top-containers. */
export const TOP_CONTAINERS_LIMIT = 10;
/** Seconds between two refreshes of the top lists (the agent keeps one sweep this long, however many pages ask). */
export const TOP_CONTAINERS_REFRESH_SECONDS = 15;

/** One running container in a top list, with the project it hosts when devplein knows it. */
export interface TopContainerJson {
  /** The container's name (the project's name for project containers). */
  name: string;
  /** null: no project of devplein has this container (e.g. a project removed since). */
  project: { id: number; name: string; domain: string } | null;
  /** The project's first member (its owner); null when unknown. */
  owner: { id: number; name: string } | null;
  /** Percent of one CPU, as `docker stats` (200 = two CPUs fully busy). */
  cpuPercent: number;
  /** Memory in use as `docker stats` shows it (usage minus inactive page cache). */
  memoryUsedBytes: number;
  /** The container's memory limit. */
  memoryLimitBytes: number;
}

/** One dev server's top containers right now. */
export interface ServerTopContainersJson {
  name: string;
  /**
   * 'ok'; 'unavailable': the agent did not answer (the lists are empty); 'too-old': its agent
   * predates contract 1.6.0 and cannot report this.
   */
  status: 'ok' | 'unavailable' | 'too-old';
  /** When the agent sampled (ISO 8601); null unless ok. */
  sampledAt: string | null;
  /** Running project containers on the server (the lists hold at most TOP_CONTAINERS_LIMIT of them). */
  running: number;
  /** Most CPU first. */
  byCpu: TopContainerJson[];
  /** Most memory first. */
  byMemory: TopContainerJson[];
}

/** GET /api/admin/overview/top-containers: per linked dev server, in the links' order. */
export interface OverviewTopContainersJson {
  servers: ServerTopContainersJson[];
}
