import type { Knex } from 'knex';

/** The time zone the school's days are counted in (the auto-stops per day). */
export const SCHOOL_TIME_ZONE = 'Europe/Amsterdam';

/** One host_samples row as the overview reads it. */
export interface HostSampleRow {
  host: string;
  sampledAt: Date;
  cpuCores: number | null;
  load1m: number | null;
  memoryTotalBytes: number | null;
  memoryAvailableBytes: number | null;
  disks: Array<{ name: string; totalBytes: number; availableBytes: number }>;
  containers: Record<string, number> | null;
  managedContainers: Record<string, number> | null;
}

interface RawSample {
  host: string;
  sampled_at: Date;
  cpu_cores: number | null;
  load_1m: number | null;
  memory_total_bytes: number | null;
  memory_available_bytes: number | null;
  disks: HostSampleRow['disks'] | string;
  containers: Record<string, number> | string | null;
  managed_containers: Record<string, number> | string | null;
}

// PGlite hands jsonb back parsed, pg too; a string only if a driver setting changes that.
const json = <T>(value: T | string): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);

/** Samples of the given dev servers in [from, to], oldest first (the primary key serves it). */
export async function hostSamplesBetween(knex: Knex, hosts: readonly string[], from: Date, to: Date): Promise<HostSampleRow[]> {
  if (hosts.length === 0) return [];
  const rows = await knex('host_samples')
    .whereIn('host', hosts)
    .andWhere('sampled_at', '>=', from)
    .andWhere('sampled_at', '<=', to)
    .orderBy([{ column: 'host' }, { column: 'sampled_at' }])
    .select<RawSample[]>('host', 'sampled_at', 'cpu_cores', 'load_1m', 'memory_total_bytes', 'memory_available_bytes', 'disks', 'containers', 'managed_containers');
  return rows.map((row) => ({
    host: row.host,
    sampledAt: new Date(row.sampled_at),
    cpuCores: row.cpu_cores,
    load1m: row.load_1m === null ? null : Number(row.load_1m),
    memoryTotalBytes: row.memory_total_bytes === null ? null : Number(row.memory_total_bytes),
    memoryAvailableBytes: row.memory_available_bytes === null ? null : Number(row.memory_available_bytes),
    disks: json(row.disks),
    containers: row.containers === null ? null : json(row.containers),
    managedContainers: row.managed_containers === null ? null : json(row.managed_containers),
  }));
}

/**
 * The last `days` school days (Europe/Amsterdam, today included, oldest first) and the idle
 * auto-stops per day and dev server in them. PostgreSQL counts the days, so the time zone rules
 * (daylight saving) are its own.
 */
export async function autoStopsPerDay(knex: Knex, days: number): Promise<{ dates: string[]; counts: Array<{ date: string; host: string; count: number }> }> {
  const dates = (await knex.raw(
    `select to_char(d, 'YYYY-MM-DD') as date
       from generate_series(((now() at time zone ?)::date - ?::int)::timestamp, (now() at time zone ?)::date::timestamp, interval '1 day') d
      order by d`,
    [SCHOOL_TIME_ZONE, days - 1, SCHOOL_TIME_ZONE],
  )) as { rows: Array<{ date: string }> };
  const first = dates.rows[0]?.date;
  if (!first) return { dates: [], counts: [] };
  const counts = (await knex.raw(
    `select to_char((stopped_at at time zone ?)::date, 'YYYY-MM-DD') as date, host, count(*)::int as count
       from idle_auto_stops
      where stopped_at >= (?::date)::timestamp at time zone ?
      group by 1, 2
      order by 1, 2`,
    [SCHOOL_TIME_ZONE, first, SCHOOL_TIME_ZONE],
  )) as { rows: Array<{ date: string; host: string; count: number }> };
  return { dates: dates.rows.map((row) => row.date), counts: counts.rows.map((row) => ({ date: row.date, host: row.host, count: Number(row.count) })) };
}

/**
 * Projects per cohort: a project counts for the cohort of its first member (entered order), as
 * the websites wall places it; null for a first member without a group, or no members.
 */
export async function projectsPerCohort(knex: Knex): Promise<Array<{ cohort: string | null; approved: number; notApproved: number }>> {
  const result = (await knex.raw(`
    select g.cohort,
           count(*) filter (where p.validated = true)::int as approved,
           count(*) filter (where p.validated is distinct from true)::int as not_approved
      from projects p
      left join lateral (
        select u.group_id from project_user pu join users u on u.id = pu.user_id
         where pu.project_id = p.id
         order by pu.position, u.id
         limit 1
      ) first_member on true
      left join groups g on g.id = first_member.group_id
     group by g.cohort
     order by g.cohort nulls last
  `)) as { rows: Array<{ cohort: string | null; approved: number; not_approved: number }> };
  return result.rows.map((row) => ({ cohort: row.cohort, approved: Number(row.approved), notApproved: Number(row.not_approved) }));
}
