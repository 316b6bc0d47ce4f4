/**
 * Docker's Status text ("Up 3 seconds", "Up 2 minutes (Paused)", "Exited (0) 2 hours ago")
 * computed from a container's inspect State, exactly as the engine computes it for its list
 * (moby container/state.go State.String with go-units HumanDuration). Needed for events: right
 * after an event the engine's list may still show the old state, while inspect already has the
 * new one.
 */

/** The fields of inspect's State the text depends on. */
export interface InspectState {
  Status: string;
  Running: boolean;
  Paused: boolean;
  Restarting: boolean;
  Dead: boolean;
  ExitCode: number;
  StartedAt: string;
  FinishedAt: string;
  Health?: { Status?: string };
}

/** go-units HumanDuration. */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 1) return 'Less than a second';
  if (seconds === 1) return '1 second';
  if (seconds < 60) return `${seconds} seconds`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes === 1) return 'About a minute';
  if (minutes < 60) return `${minutes} minutes`;
  const hours = Math.floor(ms / 3_600_000 + 0.5);
  if (hours === 1) return 'About an hour';
  if (hours < 48) return `${hours} hours`;
  if (hours < 24 * 7 * 2) return `${Math.floor(hours / 24)} days`;
  if (hours < 24 * 30 * 2) return `${Math.floor(hours / 24 / 7)} weeks`;
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24 / 30)} months`;
  return `${Math.floor(Math.floor(ms / 3_600_000) / 24 / 365)} years`;
}

/** Go's zero time, as Docker writes it for "never". */
function isZero(time: string): boolean {
  return !time || time.startsWith('0001-01-01');
}

function since(time: string, now: Date): string {
  return humanDuration(Math.max(0, now.getTime() - new Date(time).getTime()));
}

function healthText(status: string | undefined): string | undefined {
  if (!status || status === 'none') return undefined;
  return status === 'starting' ? 'health: starting' : status;
}

/** The Status text Docker's list would show for this State at `now`. */
export function statusText(state: InspectState, now: Date = new Date()): string {
  if (state.Running) {
    if (state.Paused) return `Up ${since(state.StartedAt, now)} (Paused)`;
    if (state.Restarting) return `Restarting (${state.ExitCode}) ${since(state.FinishedAt, now)} ago`;
    const health = healthText(state.Health?.Status);
    return health ? `Up ${since(state.StartedAt, now)} (${health})` : `Up ${since(state.StartedAt, now)}`;
  }
  if (state.Status === 'removing') return 'Removal In Progress';
  if (state.Dead) return 'Dead';
  if (isZero(state.StartedAt)) return 'Created';
  if (isZero(state.FinishedAt)) return '';
  return `Exited (${state.ExitCode}) ${since(state.FinishedAt, now)} ago`;
}
