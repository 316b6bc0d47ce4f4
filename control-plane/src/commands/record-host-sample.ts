import type { Knex } from 'knex';
import type { HostStatsView } from '../agent/clients/host-stats.ts';
import type { AutoStopView } from '../agent/container-views.ts';

/** The minute a sample belongs to: two control planes sampling the same minute write one row. */
export function sampleMinute(at: Date): Date {
  return new Date(Math.floor(at.getTime() / 60_000) * 60_000);
}

/**
 * Stores one dev server's HostStats as its sample of `at`'s minute (host_samples, migration
 * 0016). A second sample of the same host and minute is ignored. Resolves whether a row was written.
 */
export async function recordHostSample(knex: Knex, host: string, stats: HostStatsView, at: Date): Promise<boolean> {
  const disks = stats.disks.filter((disk) => disk.ok).map(({ name, totalBytes, availableBytes }) => ({ name, totalBytes, availableBytes }));
  const inserted = await knex('host_samples')
    .insert({
      host,
      sampled_at: sampleMinute(at),
      cpu_cores: stats.cpu?.cores ?? null,
      load_1m: stats.cpu?.load1m ?? null,
      memory_total_bytes: stats.memory?.totalBytes ?? null,
      memory_available_bytes: stats.memory?.availableBytes ?? null,
      disks: JSON.stringify(disks),
      containers: stats.containers ? JSON.stringify(stats.containers.byState) : null,
      managed_containers: stats.containers ? JSON.stringify(stats.containers.managedByState) : null,
    })
    .onConflict(['host', 'sampled_at'])
    .ignore()
    .returning('host');
  return inserted.length > 0;
}

/** One idle auto-stop the agent reported (on a container's event or in its listing). */
export interface AutoStopSighting {
  containerId: string;
  containerName: string;
  projectId: number;
  autoStop: AutoStopView;
}

/**
 * Records idle auto-stops (idle_auto_stops, migration 0016); the same stop seen again (by the
 * event and by the next listing, or by two control planes) is one row. Resolves the rows written.
 */
export async function recordAutoStops(knex: Knex, host: string, sightings: readonly AutoStopSighting[]): Promise<number> {
  if (sightings.length === 0) return 0;
  const inserted = await knex('idle_auto_stops')
    .insert(
      sightings.map((sighting) => ({
        host,
        container_id: sighting.containerId,
        container_name: sighting.containerName,
        project_id: sighting.projectId > 0 ? sighting.projectId : null,
        stopped_at: new Date(sighting.autoStop.stoppedAt),
        last_activity_at: sighting.autoStop.lastActivityAt ? new Date(sighting.autoStop.lastActivityAt) : null,
      })),
    )
    .onConflict(['host', 'container_id', 'stopped_at'])
    .ignore()
    .returning('host');
  return inserted.length;
}

/** How long the overview's rows are kept. */
export const HOST_SAMPLE_RETENTION_MS = 7 * 86_400_000;
export const AUTO_STOP_RETENTION_MS = 31 * 86_400_000;

/** Deletes samples older than 7 days and auto-stops older than 31 (relative to `now`). */
export async function pruneOverviewRows(knex: Knex, now: Date): Promise<{ samples: number; autoStops: number }> {
  const samples = await knex('host_samples').where('sampled_at', '<', new Date(now.getTime() - HOST_SAMPLE_RETENTION_MS)).delete();
  const autoStops = await knex('idle_auto_stops').where('stopped_at', '<', new Date(now.getTime() - AUTO_STOP_RETENTION_MS)).delete();
  return { samples, autoStops };
}
