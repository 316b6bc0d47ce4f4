import { describe, expect, it } from 'vitest';
import { presentAutoStopDays, presentCohortProjects, presentOverviewServer } from './present-overview.ts';
import type { HostSampleRow } from '../queries/overview.ts';

const sample = (minute: number, overrides: Partial<HostSampleRow> = {}): HostSampleRow => ({
  host: 'dev1',
  sampledAt: new Date(Date.UTC(2026, 10, 27, 10, minute)),
  cpuCores: 4,
  load1m: 2,
  memoryTotalBytes: 16e9,
  memoryAvailableBytes: 6e9,
  disks: [{ name: 'docker', totalBytes: 100e9, availableBytes: 40e9 }],
  containers: { running: 3 },
  managedContainers: { running: 2 },
  ...overrides,
});

describe('presentOverviewServer', () => {
  it('turns samples into columns: load per core, memory used, a disk column per mount (null where a sample lacks it)', () => {
    const server = presentOverviewServer({ name: 'dev1', siteDomain: 'dev.test' }, [
      sample(0),
      sample(1, { cpuCores: null, memoryAvailableBytes: null, disks: [{ name: 'agent', totalBytes: 50e9, availableBytes: 10e9 }], containers: null, managedContainers: null }),
    ]);
    expect(server.series.times).toEqual([Date.UTC(2026, 10, 27, 10, 0) / 1000, Date.UTC(2026, 10, 27, 10, 1) / 1000]);
    expect(server.series.loadPerCore).toEqual([0.5, null]);
    expect(server.series.memoryUsedBytes).toEqual([10e9, null]);
    expect(server.series.disks).toEqual([
      { name: 'docker', totalBytes: [100e9, null], availableBytes: [40e9, null] },
      { name: 'agent', totalBytes: [null, 50e9], availableBytes: [null, 10e9] },
    ]);
    // The latest sample with counts, not the latest sample.
    expect(server.containersNow).toEqual({ sampledAt: '2026-11-27T10:00:00.000Z', byState: { running: 3 }, managedByState: { running: 2 } });
  });

  it('has no containers now without samples', () => {
    expect(presentOverviewServer({ name: 'dev2', siteDomain: 'x' }, []).containersNow).toBeNull();
  });
});

describe('presentAutoStopDays', () => {
  it('keeps every day of the window, zero days included, and sums per host', () => {
    const json = presentAutoStopDays(['2026-11-25', '2026-11-26', '2026-11-27'], [
      { date: '2026-11-25', host: 'dev2', count: 1 },
      { date: '2026-11-27', host: 'dev1', count: 2 },
      { date: '2026-11-27', host: 'dev2', count: 3 },
      { date: '2026-10-01', host: 'dev9', count: 9 },
    ]);
    expect(json).toEqual({
      days: [
        { date: '2026-11-25', total: 1, byHost: { dev2: 1 } },
        { date: '2026-11-26', total: 0, byHost: {} },
        { date: '2026-11-27', total: 5, byHost: { dev1: 2, dev2: 3 } },
      ],
      hosts: ['dev1', 'dev2'],
      total: 6,
    });
  });
});

it('names projects without a cohort as the websites wall does', () => {
  expect(presentCohortProjects([{ cohort: null, approved: 1, notApproved: 2 }])).toEqual([{ cohort: 'Niet ingedeeld', approved: 1, notApproved: 2 }]);
});
