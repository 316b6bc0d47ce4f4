import { TOP_CONTAINERS_LIMIT, type ServerTopContainersJson, type TopContainerJson } from '@devplein/contract/overview';
import type { ContainerStatsSweepView, RunningContainerStatsView } from '../agent/clients/container-stats.ts';

/** What the presenter knows of a project: its name, domain, dev server and members in order. */
export interface TopProjectRow {
  id: number;
  name: string;
  domain: string;
  /** Agent link name; null is the first link. */
  host: string | null;
  users: Array<{ id: number; name: string }>;
}

const byCpu = (a: RunningContainerStatsView, b: RunningContainerStatsView) => b.stats.cpuPercent - a.stats.cpuPercent || a.name.localeCompare(b.name);
const byMemory = (a: RunningContainerStatsView, b: RunningContainerStatsView) => b.stats.memoryUsedBytes - a.stats.memoryUsedBytes || a.name.localeCompare(b.name);

/**
 * One dev server's sweep as its two top lists (at most TOP_CONTAINERS_LIMIT each), each container
 * with its project and owner (first member) when a project of this server has its project id.
 */
export function presentTopContainers(
  server: { name: string; isDefault: boolean },
  sweep: ContainerStatsSweepView,
  projects: ReadonlyMap<number, TopProjectRow>,
): ServerTopContainersJson {
  const entry = (container: RunningContainerStatsView): TopContainerJson => {
    const project = projects.get(container.projectId);
    const ours = project && (project.host === server.name || (project.host === null && server.isDefault)) ? project : undefined;
    const owner = ours?.users[0];
    return {
      name: container.name,
      project: ours ? { id: ours.id, name: ours.name, domain: ours.domain } : null,
      owner: owner ? { id: owner.id, name: owner.name } : null,
      cpuPercent: Math.round(container.stats.cpuPercent * 10) / 10,
      memoryUsedBytes: container.stats.memoryUsedBytes,
      memoryLimitBytes: container.stats.memoryLimitBytes,
    };
  };
  return {
    name: server.name,
    status: 'ok',
    sampledAt: sweep.sweptAt.toISOString(),
    running: sweep.containers.length,
    byCpu: [...sweep.containers].sort(byCpu).slice(0, TOP_CONTAINERS_LIMIT).map(entry),
    byMemory: [...sweep.containers].sort(byMemory).slice(0, TOP_CONTAINERS_LIMIT).map(entry),
  };
}

/** A dev server whose top lists cannot be shown: its agent did not answer, or is too old. */
export function presentTopContainersMissing(name: string, status: 'unavailable' | 'too-old'): ServerTopContainersJson {
  return { name, status, sampledAt: null, running: 0, byCpu: [], byMemory: [] };
}
