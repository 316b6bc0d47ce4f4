import type { InspectState } from './container-status.ts';

/**
 * A container's State right after an event whose outcome the event alone determines, given its
 * State before (the last one the event stream inspected or derived); undefined when only an
 * inspect can tell (any other action, or a State before that does not fit). It spares the
 * engine round trip on the events a page waits for most (pause, unpause, start, stop), where
 * that inspect was most of the agent's part of an event's latency.
 *
 * - pause / unpause of a running container: Paused flips (Status paused / running).
 * - start: running since the event (Health back to 'starting' when it has a health check).
 * - stop: comes after die, whose inspect already has the exited State; kept when not running.
 * die (a restart policy may already have restarted it), kill, restart, health_status, … are
 * inspected.
 */
export function stateAfterEvent(action: string, before: InspectState | undefined, time: Date): InspectState | undefined {
  if (!before) return undefined;
  switch (action) {
    case 'pause':
      return before.Running && !before.Restarting ? { ...before, Paused: true, Status: 'paused' } : undefined;
    case 'unpause':
      return before.Running && !before.Restarting ? { ...before, Paused: false, Status: 'running' } : undefined;
    case 'start':
      return {
        ...before,
        Status: 'running',
        Running: true,
        Paused: false,
        Restarting: false,
        Dead: false,
        ExitCode: 0,
        StartedAt: time.toISOString(),
        ...(before.Health ? { Health: { Status: 'starting' } } : {}),
      };
    case 'stop':
      return before.Running ? undefined : before;
    default:
      return undefined;
  }
}
