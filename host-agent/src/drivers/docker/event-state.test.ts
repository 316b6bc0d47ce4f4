import { describe, expect, it } from 'vitest';
import type { InspectState } from './container-status.ts';
import { statusText } from './container-status.ts';
import { stateAfterEvent } from './event-state.ts';

const startedAt = '2026-11-27T10:00:00.000Z';
const running: InspectState = {
  Status: 'running',
  Running: true,
  Paused: false,
  Restarting: false,
  Dead: false,
  ExitCode: 0,
  StartedAt: startedAt,
  FinishedAt: '0001-01-01T00:00:00Z',
};
const exited: InspectState = { ...running, Status: 'exited', Running: false, ExitCode: 137, FinishedAt: '2026-11-27T10:05:00.000Z' };
const at = new Date('2026-11-27T10:10:00.000Z');

describe('the State right after an event', () => {
  it('pause and unpause of a running container flip Paused, and the Status text follows as inspect would give it', () => {
    const paused = stateAfterEvent('pause', running, at);
    expect(paused).toMatchObject({ Status: 'paused', Running: true, Paused: true, StartedAt: startedAt });
    expect(statusText(paused!, at)).toBe('Up 10 minutes (Paused)');
    const unpaused = stateAfterEvent('unpause', paused, at);
    expect(unpaused).toEqual(running);
    expect(statusText(unpaused!, at)).toBe('Up 10 minutes');
  });

  it('start: running since the event, with the health check starting again', () => {
    const started = stateAfterEvent('start', { ...exited, Health: { Status: 'unhealthy' } }, at);
    expect(started).toMatchObject({ Status: 'running', Running: true, ExitCode: 0, StartedAt: at.toISOString(), Health: { Status: 'starting' } });
    expect(statusText(started!, at)).toBe('Up Less than a second (health: starting)');
    expect(stateAfterEvent('start', exited, at)?.Health).toBeUndefined();
  });

  it('stop keeps the exited State its die was inspected with', () => {
    expect(stateAfterEvent('stop', exited, at)).toEqual(exited);
  });

  it('leaves it to inspect when the event alone does not tell, or the State before does not fit', () => {
    expect(stateAfterEvent('pause', undefined, at)).toBeUndefined();
    expect(stateAfterEvent('start', undefined, at)).toBeUndefined();
    expect(stateAfterEvent('pause', exited, at)).toBeUndefined();
    expect(stateAfterEvent('unpause', { ...running, Restarting: true }, at)).toBeUndefined();
    expect(stateAfterEvent('stop', running, at)).toBeUndefined();
    for (const action of ['die', 'kill', 'restart', 'create', 'health_status: healthy', 'oom', 'rename', 'update']) {
      expect(stateAfterEvent(action, running, at)).toBeUndefined();
    }
  });
});
