import type { Logger } from 'pino';
import { normaliseHost } from '../drivers/proxy/access-log.ts';
import type { ManagedContainerEvent, ManagedContainers } from '../drivers/docker/managed-containers.ts';
import { type ScheduledJob, scheduleJob } from './schedule.ts';
import type { AutoStopRecord, SiteActivity } from './site-activity.ts';

/** Events after which a container counts as freshly active (a start is never idle). */
const START_EVENTS = new Set(['start', 'restart', 'unpause']);

/** Docker states in which a container runs again, so an old auto-stop no longer applies. */
const ALIVE_STATES = new Set(['running', 'paused', 'restarting']);

export interface IdleStopperOptions {
  containers: Pick<ManagedContainers, 'list' | 'startedAt' | 'stop'>;
  activity: SiteActivity;
  /**
   * Resolves when Caddy answers with the access log in place (ProxyDriver.ensureServer);
   * rejects when it does not: visits could not be seen meanwhile, so that time does not count.
   */
  ensureObserving: () => Promise<void>;
  /** Idle time after which a running container is stopped. */
  afterMs: number;
  /** cron expression of the check (config AGENT_IDLE_CRON). */
  cron: string;
  logger: Logger;
  now?: () => Date;
  /** Called once per container the job stopped (metrics). */
  onStopped?: (record: AutoStopRecord) => void;
}

/** What one check did. */
export interface IdleCheckOutcome {
  /** Running managed containers looked at. */
  checked: number;
  /** Names of the containers stopped. */
  stopped: string[];
  /** Caddy did not answer: nothing was stopped and the time since the last check does not count. */
  unobserved: boolean;
}

/**
 * Idle auto-stop (JupyterHub's culler, but never deleting): on a cron schedule, each running
 * managed container whose domain had no request through the proxy for `afterMs` — its last
 * start counting as activity, requests of the agent's own screenshot browser not — is stopped
 * with `docker stop` and never removed. The stop is recorded (why, when, last activity) before
 * it happens, so the container's events and listings carry it until the container starts again.
 *
 * Not stopped: paused containers (pausing is the student's own choice; an unpause counts as a
 * start), containers without a domain (no way to see visits), and anything while Caddy does not
 * answer. A check that fails is logged; the next tick tries again.
 */
export class IdleStopper {
  private schedule: ScheduledJob | undefined;
  private running: Promise<IdleCheckOutcome> | undefined;
  private lastObservedAt: Date | undefined;
  private readonly now: () => Date;

  constructor(private readonly options: IdleStopperOptions) {
    this.now = options.now ?? (() => new Date());
  }

  start(): void {
    this.schedule = scheduleJob({
      name: 'idle-stopper',
      expression: this.options.cron,
      setting: 'AGENT_IDLE_CRON',
      run: () => this.check(),
      logger: this.options.logger,
    });
  }

  /** Ends the schedule, waits for a check in progress and saves the store. */
  async stop(): Promise<void> {
    await this.schedule?.stop();
    await this.running?.catch(() => undefined);
    await this.options.activity.save();
  }

  /** A container event the route keeper followed: a start, restart or unpause is activity. */
  noteEvent(event: ManagedContainerEvent): void {
    if (!START_EVENTS.has(event.action)) return;
    const domain = normaliseHost(event.domain);
    if (domain) this.options.activity.recordStart(domain);
    this.options.activity.clearAutoStop(event.containerId);
  }

  /** The auto-stop of a container, while it is stopped because of one. */
  autoStopOf(containerId: string): AutoStopRecord | undefined {
    return this.options.activity.autoStopOf(containerId);
  }

  /** One check now (a check already running is shared). */
  check(): Promise<IdleCheckOutcome> {
    this.running ??= this.checkNow().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async checkNow(): Promise<IdleCheckOutcome> {
    const { activity, containers, logger, afterMs } = this.options;
    const outcome: IdleCheckOutcome = { checked: 0, stopped: [], unobserved: false };
    const checkedAt = this.now();
    try {
      await this.options.ensureObserving();
    } catch (error) {
      activity.addUnobserved(this.lastObservedAt ?? checkedAt, checkedAt);
      this.lastObservedAt = checkedAt;
      logger.warn({ err: error }, 'idle auto-stop: the proxy does not answer; no container is stopped and this time does not count as idle');
      await activity.save();
      return { ...outcome, unobserved: true };
    }
    this.lastObservedAt = checkedAt;

    const all = await containers.list();
    activity.retain(
      new Set(all.map((container) => normaliseHost(container.domain)).filter((domain): domain is string => domain !== undefined)),
      new Set(all.map((container) => container.id)),
    );
    for (const container of all) {
      if (ALIVE_STATES.has(container.state)) activity.clearAutoStop(container.id);
      const domain = normaliseHost(container.domain);
      if (container.state !== 'running' || !domain) continue;
      outcome.checked += 1;
      const lastVisit = activity.lastActivityOf(domain);
      // Most containers were visited recently: no need to ask Docker when they started.
      if (lastVisit && activity.idleMs(lastVisit) < afterMs) continue;
      const startedAt = await containers.startedAt(container.id);
      const last = latest(lastVisit, startedAt);
      if (activity.idleMs(last) < afterMs) continue;

      const record: AutoStopRecord = { reason: 'idle', stoppedAt: this.now(), lastActivityAt: last ?? container.createdAt, idleAfterMs: afterMs, domain };
      // Recorded first: the stop's events and listings must already carry the reason.
      activity.markAutoStop(container.id, record);
      try {
        if (!(await containers.stop(container.id))) {
          activity.clearAutoStop(container.id);
          continue;
        }
      } catch (error) {
        activity.clearAutoStop(container.id);
        logger.error({ err: error, container: container.name }, 'idle auto-stop: stopping the container failed; trying again on the next check');
        continue;
      }
      outcome.stopped.push(container.name);
      this.options.onStopped?.(record);
      logger.info(
        { container: container.name, projectId: container.projectId, domain, lastActivityAt: record.lastActivityAt.toISOString(), idleAfterMs: afterMs },
        'idle auto-stop: stopped a container without visitors (not removed)',
      );
    }
    await activity.save();
    return outcome;
  }
}

function latest(a: Date | undefined, b: Date | undefined): Date | undefined {
  if (!a) return b;
  if (!b) return a;
  return a.getTime() >= b.getTime() ? a : b;
}
