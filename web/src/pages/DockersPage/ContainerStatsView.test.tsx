// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import type { LiveContainerStatsJson } from '@devplein/contract/container-stats';
import { ContainerStatsView, sparklinePoints } from './ContainerStatsView.tsx';

afterEach(cleanup);

const MB = 1024 * 1024;

function live(overrides: Partial<LiveContainerStatsJson> = {}): LiveContainerStatsJson {
  return {
    status: 'live',
    readAt: '2026-11-27T10:05:00.000Z',
    cpuPercent: 3,
    memoryUsedBytes: 212 * MB,
    memoryLimitBytes: 512 * MB,
    networkRxBytes: 0,
    networkTxBytes: 0,
    blockReadBytes: 0,
    blockWriteBytes: 0,
    pids: 4,
    oomKilled: false,
    restartCount: 0,
    sizeRwBytes: null,
    history: [
      { at: '2026-11-27T10:04:50.000Z', cpuPercent: 1, memoryUsedBytes: 200 * MB },
      { at: '2026-11-27T10:04:55.000Z', cpuPercent: 12.5, memoryUsedBytes: 210 * MB },
    ],
    ...overrides,
  };
}

describe('ContainerStatsView', () => {
  it('shows the values in Dutch and sparklines with a text alternative', () => {
    render(<ContainerStatsView stats={live()} />);
    expect(screen.getByTestId('docker-stats-cpu').textContent).toBe('CPU 3 %');
    expect(screen.getByTestId('docker-stats-memory').textContent).toBe('Geheugen 212 MB van 512 MB');
    expect(screen.getByRole('img', { name: 'CPU de laatste 5 minuten: tussen 1 % en 13 %, nu 3 %' })).toBeTruthy();
    expect(screen.getByRole('img', { name: 'Geheugen de laatste 5 minuten: tussen 200 MB en 212 MB, nu 212 MB' })).toBeTruthy();
    expect(screen.queryByTestId('docker-stats-warning')).toBeNull();
    expect(screen.queryByTestId('docker-stats-oom')).toBeNull();
  });

  it('warns from 90 % of the memory limit', () => {
    render(<ContainerStatsView stats={live({ memoryUsedBytes: 470 * MB })} />);
    expect(screen.getByTestId('docker-stats-warning').textContent).toBe(
      'Let op: je container gebruikt 92 % van zijn geheugen. Raakt het vol, dan stopt Docker je container.',
    );
  });

  it('says what happened after an OOM kill, with the restarts', () => {
    render(<ContainerStatsView stats={live({ oomKilled: true, restartCount: 3 })} />);
    expect(screen.getByTestId('docker-stats-oom').textContent).toContain('Je container is gestopt omdat het geheugen vol was (3 keer herstart).');
  });

  it('shows nothing for a container that does not run or an agent too old, a wait while the first sample comes', () => {
    const { container, rerender } = render(<ContainerStatsView stats={{ status: 'not-running' }} />);
    expect(container.textContent).toBe('');
    rerender(<ContainerStatsView stats={{ status: 'unsupported' }} />);
    expect(container.textContent).toBe('');
    rerender(<ContainerStatsView stats={{ status: 'starting' }} />);
    expect(container.textContent).toBe('Gebruik ophalen…');
  });

  it('draws the line inside the box, oldest left', () => {
    expect(sparklinePoints([0, 50, 100], 100)).toBe('0.0,27.0 60.0,14.0 120.0,1.0');
    expect(sparklinePoints([], 100)).toBe('');
  });
});
