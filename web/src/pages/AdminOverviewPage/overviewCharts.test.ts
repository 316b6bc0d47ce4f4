import { describe, expect, it } from 'vitest';
import type { OverviewServerJson } from '@devplein/contract/overview';
import { withGaps } from '../../components/charts/chartSpec.ts';
import { seriesSummary } from '../../api/queries/overview.ts';
import { autoStopsChart, containersNowChart, statesOf } from './overviewCharts.ts';

const server = (name: string, byState: Record<string, number> | null): OverviewServerJson => ({
  name,
  siteDomain: `${name}.test`,
  containersNow: byState ? { sampledAt: '2026-11-27T10:00:00.000Z', byState, managedByState: byState } : null,
  series: { times: [], loadPerCore: [], memoryUsedBytes: [], memoryTotalBytes: [], disks: [] },
});

describe('the overview charts', () => {
  it('stacks containers per state per dev server, states in the status page order, Dutch labels', () => {
    const spec = containersNowChart([server('dev1', { exited: 1, running: 2, weird: 1 }), server('dev2', null)]);
    expect(spec.categories).toEqual(['dev1', 'dev2']);
    expect(spec.series.map((series) => [series.label, series.values])).toEqual([
      ['actief', [2, 0]],
      ['gestopt', [1, 0]],
      ['weird', [1, 0]],
    ]);
    expect(statesOf([{ paused: 0, running: 1 }])).toEqual(['running']);
  });

  it('draws the auto-stops per day with dd-mm labels, a series per dev server', () => {
    const spec = autoStopsChart({ days: [{ date: '2026-11-26', total: 0, byHost: {} }, { date: '2026-11-27', total: 2, byHost: { dev1: 2 } }], hosts: ['dev1'], total: 2 });
    expect(spec.categories).toEqual(['26-11', '27-11']);
    expect(spec.series[0]?.values).toEqual([0, 2]);
  });

  it('breaks a line where samples are missing (more than 150 s apart)', () => {
    expect(withGaps([0, 60, 600, 660], [[1, 2, 3, 4]])).toEqual({ times: [0, 60, 120, 600, 660], columns: [[1, 2, null, 3, 4]] });
  });

  it('summarises a series for its text alternative, skipping gaps', () => {
    expect(seriesSummary([1, null, 3])).toEqual({ latest: 3, min: 1, average: 2, max: 3 });
    expect(seriesSummary([null])).toEqual({ latest: null, min: null, average: null, max: null });
  });
});
