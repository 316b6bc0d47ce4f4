import { describe, expect, it } from 'vitest';
import { ContainerStats } from '@devplein/proto/container_stats';
import { containerStatsView, type ContainerStatsView } from '../agent/clients/container-stats.ts';
import { presentTopContainers, presentTopContainersMissing, type TopProjectRow } from './present-top-containers.ts';

/** A sample as the agent client makes it from the message (only the figures the lists read set). */
const stats = (cpuPercent: number, memoryUsedBytes: number): ContainerStatsView =>
  containerStatsView(ContainerStats.fromPartial({ containerId: 'c', readAt: new Date('2026-11-27T10:00:00Z'), cpuPercent, memoryUsedBytes, memoryLimitBytes: 1_000 })) as ContainerStatsView;

const project = (id: number, host: string | null): TopProjectRow => ({ id, name: `project-${id}`, domain: `p${id}.dev.test`, host, users: [{ id: 7, name: 'Sam Student' }] });

describe('presentTopContainers', () => {
  const sweptAt = new Date('2026-11-27T10:00:00Z');
  const containers = Array.from({ length: 12 }, (_, index) => ({ name: `c${index}`, projectId: index + 1, stats: stats(index * 1.234, 1_000 - index) }));

  it('keeps the 10 with the most CPU and the 10 with the most memory, most first, CPU to one decimal', () => {
    const top = presentTopContainers({ name: 'dev1', isDefault: true }, { sweptAt, containers }, new Map());
    expect(top).toMatchObject({ name: 'dev1', status: 'ok', sampledAt: sweptAt.toISOString(), running: 12 });
    expect(top.byCpu.map((entry) => entry.name)).toEqual(['c11', 'c10', 'c9', 'c8', 'c7', 'c6', 'c5', 'c4', 'c3', 'c2']);
    expect(top.byCpu[0]?.cpuPercent).toBe(13.6);
    expect(top.byMemory.map((entry) => entry.name)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9']);
  });

  it('names the project and its first member only for a project of this dev server (no host: the first one)', () => {
    const projects = new Map([
      [1, project(1, null)],
      [2, project(2, 'dev2')],
    ]);
    const onFirst = presentTopContainers({ name: 'dev1', isDefault: true }, { sweptAt, containers: containers.slice(0, 2) }, projects);
    expect(onFirst.byMemory[0]).toMatchObject({ name: 'c0', project: { id: 1, name: 'project-1', domain: 'p1.dev.test' }, owner: { id: 7, name: 'Sam Student' } });
    expect(onFirst.byMemory[1]).toMatchObject({ name: 'c1', project: null, owner: null });
    const onSecond = presentTopContainers({ name: 'dev2', isDefault: false }, { sweptAt, containers: containers.slice(0, 2) }, projects);
    expect(onSecond.byMemory.map((entry) => entry.project?.id ?? null)).toEqual([null, 2]);
  });

  it('gives an unavailable server empty lists', () => {
    expect(presentTopContainersMissing('dev2', 'unavailable')).toEqual({ name: 'dev2', status: 'unavailable', sampledAt: null, running: 0, byCpu: [], byMemory: [] });
  });
});
