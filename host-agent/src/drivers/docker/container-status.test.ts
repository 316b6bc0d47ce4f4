import { describe, expect, it } from 'vitest';
import { type InspectState, humanDuration, statusText } from './container-status.ts';

const now = new Date('2026-11-22T10:00:00Z');
const base: InspectState = {
  Status: 'running',
  Running: true,
  Paused: false,
  Restarting: false,
  Dead: false,
  ExitCode: 0,
  StartedAt: '2026-11-22T09:59:57.123456789Z',
  FinishedAt: '0001-01-01T00:00:00Z',
};

describe('humanDuration', () => {
  it('words durations as go-units does', () => {
    expect(humanDuration(500)).toBe('Less than a second');
    expect(humanDuration(1_000)).toBe('1 second');
    expect(humanDuration(42_000)).toBe('42 seconds');
    expect(humanDuration(90_000)).toBe('About a minute');
    expect(humanDuration(5 * 60_000)).toBe('5 minutes');
    expect(humanDuration(60 * 60_000)).toBe('About an hour');
    expect(humanDuration(3 * 3_600_000)).toBe('3 hours');
    expect(humanDuration(3 * 86_400_000)).toBe('3 days');
    expect(humanDuration(21 * 86_400_000)).toBe('3 weeks');
    expect(humanDuration(90 * 86_400_000)).toBe('3 months');
    expect(humanDuration(800 * 86_400_000)).toBe('2 years');
  });
});

describe('statusText', () => {
  it("matches Docker's list for each state", () => {
    expect(statusText(base, now)).toBe('Up 2 seconds');
    expect(statusText({ ...base, Status: 'paused', Paused: true }, now)).toBe('Up 2 seconds (Paused)');
    expect(statusText({ ...base, Health: { Status: 'healthy' } }, now)).toBe('Up 2 seconds (healthy)');
    expect(statusText({ ...base, Health: { Status: 'starting' } }, now)).toBe('Up 2 seconds (health: starting)');
    expect(statusText({ ...base, Status: 'exited', Running: false, ExitCode: 143, FinishedAt: '2026-11-22T08:00:00Z' }, now)).toBe('Exited (143) 2 hours ago');
    expect(statusText({ ...base, Status: 'created', Running: false, StartedAt: '0001-01-01T00:00:00Z' }, now)).toBe('Created');
    expect(statusText({ ...base, Status: 'dead', Running: false, Dead: true }, now)).toBe('Dead');
    expect(statusText({ ...base, Status: 'restarting', Restarting: true, ExitCode: 1, FinishedAt: '2026-11-22T09:59:59Z' }, now)).toBe('Restarting (1) 1 second ago');
  });
});
