import type { Logger } from 'pino';
import { toAgentError } from './agent-error.ts';
import { type BackoffPolicy, backoffDelay } from './backoff.ts';

/** One facility of the agent's host as the control plane shows it. */
export interface CapabilityView {
  available: boolean;
  detail: string;
}

/** The agent's Info as plain JSON (for GET /api/admin/agent and /healthz). */
export interface AgentInfoView {
  agentVersion: string;
  contractVersion: string;
  hostname: string;
  capabilities: {
    docker: CapabilityView;
    proxy: CapabilityView;
    mysql: CapabilityView;
    chromium: CapabilityView;
    wireguard: CapabilityView;
  };
}

/**
 * What the control plane knows about the link: `unknown` before the first answer, then
 * `reachable` or `unreachable` since the ISO time `since`. `info` is the last Info received
 * (kept while unreachable, to show which agent is missing); `lastError` the last failure.
 */
export interface AgentStatus {
  state: 'unknown' | 'reachable' | 'unreachable';
  since: string;
  info?: AgentInfoView;
  lastError?: string;
}

/** Time and timers, injectable so tests run the monitor on a fake clock. */
export interface MonitorClock {
  now(): Date;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The real clock; its timers do not keep the process alive. */
export const systemClock: MonitorClock = {
  now: () => new Date(),
  setTimeout: (callback, ms) => setTimeout(callback, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface HealthMonitorOptions {
  /** One health check: resolves with the agent's Info or rejects (with the call's deadline). */
  probe: () => Promise<AgentInfoView>;
  /** Pause between checks while the agent answers. */
  intervalMs: number;
  /** Pause between checks while it does not. */
  backoff: BackoffPolicy;
  logger: Logger;
  clock?: MonitorClock;
  random?: () => number;
}

/**
 * Watches the agent link: checks at once on start(), then every intervalMs while the agent
 * answers and with exponential backoff while it does not; flips the status on every change.
 * Calls made elsewhere report their outcome through recordSuccess/recordFailure, so the
 * status follows the freshest evidence.
 */
export class AgentHealthMonitor {
  private readonly clock: MonitorClock;
  private current: AgentStatus;
  private failures = 0;
  private timer: unknown;
  private running = false;
  private generation = 0;

  constructor(private readonly options: HealthMonitorOptions) {
    this.clock = options.clock ?? systemClock;
    this.current = { state: 'unknown', since: this.clock.now().toISOString() };
  }

  status(): AgentStatus {
    return { ...this.current };
  }

  /** Consecutive failed checks so far (0 while reachable). */
  get consecutiveFailures(): number {
    return this.failures;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  stop(): void {
    this.running = false;
    this.generation += 1;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  recordSuccess(info: AgentInfoView): void {
    this.failures = 0;
    const changed = this.current.state !== 'reachable';
    this.current = {
      state: 'reachable',
      since: changed ? this.clock.now().toISOString() : this.current.since,
      info,
    };
    if (changed) this.options.logger.info({ agentVersion: info.agentVersion, hostname: info.hostname }, 'agent reachable');
  }

  recordFailure(error: unknown): void {
    this.failures += 1;
    const message = toAgentError(error).message;
    const changed = this.current.state !== 'unreachable';
    this.current = {
      state: 'unreachable',
      since: changed ? this.clock.now().toISOString() : this.current.since,
      ...(this.current.info ? { info: this.current.info } : {}),
      lastError: message,
    };
    if (changed) this.options.logger.warn({ error: message }, 'agent unreachable');
  }

  /** Delay before the next check, from the current state. */
  nextDelayMs(): number {
    return this.failures === 0 ? this.options.intervalMs : backoffDelay(this.failures, this.options.backoff, this.options.random);
  }

  private schedule(delayMs: number): void {
    const generation = this.generation;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      void this.check(generation);
    }, delayMs);
  }

  private async check(generation: number): Promise<void> {
    try {
      const info = await this.options.probe();
      if (generation !== this.generation) return;
      this.recordSuccess(info);
    } catch (error) {
      if (generation !== this.generation) return;
      this.recordFailure(error);
    }
    if (this.running && generation === this.generation) this.schedule(this.nextDelayMs());
  }
}
