import { setTimeout as sleep } from 'node:timers/promises';
import { ThrottledWarnings } from '@devplein/server-kit/throttled-warnings';
import type { Logger } from 'pino';
import { isUnderSiteDomain, parseDomain } from '../drivers/proxy/caddy-route.ts';
import { type ProxyDriver, type ProxyRoute, ProxyUnavailableError } from '../drivers/proxy/proxy-driver.ts';
import type { ManagedContainer, ManagedContainerEvent, ManagedContainers } from '../drivers/docker/managed-containers.ts';
import { type ScheduledJob, scheduleJob } from './schedule.ts';

/** Docker states whose container keeps its route (a paused site comes back on unpause). */
const ROUTED_STATES = new Set(['running', 'paused']);

/** What one reconcile changed. */
export interface ReconcileOutcome {
  added: number;
  updated: number;
  removed: number;
  unchanged: number;
  /** Half-made containers (stuck in `created`) removed. */
  removedContainers: number;
}

export interface RouteKeeperOptions {
  containers: ManagedContainers;
  proxy: ProxyDriver;
  logger: Logger;
  /** cron expression of the periodic reconcile (config.reconcileCron). */
  cron: string;
  /** A managed container still `created` after this long was half-made by a crash; default 2 min. */
  stuckCreatedMs?: number;
  now?: () => Date;
  /** Longest wait between attempts to reopen the event stream; default 30 s. */
  maxBackoffMs?: number;
  /** Also hears every container event the keeper follows (the idle auto-stop counts starts). */
  onEvent?: (event: ManagedContainerEvent) => void;
  /**
   * AGENT_SITE_DOMAIN: a container whose domain label is not under it gets no route (one an
   * earlier agent made before CreateContainer checked the domain). Unset: every domain.
   */
  siteDomain?: string;
}

/**
 * Keeps Caddy's managed routes equal to the routes the running (or paused) managed containers
 * should have: a full reconcile at start-up and on the cron schedule, and one domain at a time
 * on container events. Also removes containers an agent crash left half-made. Work is done one
 * step at a time (a queue), so an event and a reconcile never undo each other's change.
 * Failures (Caddy or Docker away) are logged and retried by the next tick or event; the keeper
 * never stops the agent.
 */
export class RouteKeeper {
  private queue: Promise<unknown> = Promise.resolve();
  private queuedReconcile: Promise<ReconcileOutcome | undefined> | undefined;
  /** Domains with container events not synced yet (domain → the last event's action). */
  private readonly pendingDomains = new Map<string, string>();
  private queuedSync: Promise<void> | undefined;
  private schedule: ScheduledJob | undefined;
  private readonly abort = new AbortController();
  private watching: Promise<void> | undefined;
  private readonly now: () => Date;
  /** Docker or Caddy away: every tick and every reopened stream meets it, said once a minute. */
  private readonly partsAway: ThrottledWarnings;

  constructor(private readonly options: RouteKeeperOptions) {
    this.partsAway = new ThrottledWarnings(options.logger);
    this.now = options.now ?? (() => new Date());
  }

  /** Reconciles once now, then on the schedule, and follows container events until stop(). */
  start(): void {
    this.schedule = scheduleJob({
      name: 'route-keeper',
      expression: this.options.cron,
      setting: 'AGENT_RECONCILE_CRON',
      run: () => this.reconcile(),
      logger: this.options.logger,
    });
    void this.reconcile();
    this.watching = this.followEvents();
  }

  /** Stops the schedule and the event stream and waits for the step in progress. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.schedule?.stop();
    await this.watching;
    await this.queue;
  }

  /**
   * One full reconcile (queued behind running work; a reconcile already waiting is shared).
   * Resolves with what changed, or undefined when Caddy or Docker did not answer.
   */
  reconcile(): Promise<ReconcileOutcome | undefined> {
    this.queuedReconcile ??= this.enqueue(async () => {
      this.queuedReconcile = undefined;
      return this.guard('reconcile', () => this.reconcileNow());
    });
    return this.queuedReconcile;
  }

  private enqueue<T>(work: () => Promise<T>): Promise<T> {
    const result = this.queue.then(work, work);
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** Runs a step; Caddy or Docker being away is a warning (the next tick retries), not a crash. */
  private async guard<T>(what: string, work: () => Promise<T>): Promise<T | undefined> {
    if (this.abort.signal.aborted) return undefined;
    try {
      return await work();
    } catch (error) {
      const message = `route keeper: ${what} failed; retrying on the next tick`;
      if (error instanceof ProxyUnavailableError || isDockerUnreachable(error)) this.partsAway.warn(what, { err: error }, message);
      else this.options.logger.error({ err: error }, message);
      return undefined;
    }
  }

  private async reconcileNow(): Promise<ReconcileOutcome> {
    const { containers, proxy, logger } = this.options;
    const outcome: ReconcileOutcome = { added: 0, updated: 0, removed: 0, unchanged: 0, removedContainers: 0 };
    const all = await containers.list();
    const stuckBefore = this.now().getTime() - (this.options.stuckCreatedMs ?? 120_000);
    for (const container of all) {
      if (container.state === 'created' && container.createdAt.getTime() < stuckBefore) {
        if (!(await containers.removeIfStillCreated(container.id))) continue;
        outcome.removedContainers += 1;
        logger.warn({ container: container.name, projectId: container.projectId }, 'route keeper: removed a half-made container (created, never started)');
      }
    }

    const desired = this.desiredRoutes(all);
    await proxy.ensureServer();
    const actual = new Map<string, ProxyRoute[]>();
    for (const route of await proxy.listRoutes()) actual.set(route.domain, [...(actual.get(route.domain) ?? []), route]);

    for (const [domain, route] of desired) {
      const current = actual.get(domain) ?? [];
      if (current.length === 1 && sameRoute(current[0], route)) {
        outcome.unchanged += 1;
        continue;
      }
      if (current.length > 1) await proxy.removeRoute(domain);
      await proxy.upsertRoute(route);
      if (current.length === 0) outcome.added += 1;
      else outcome.updated += 1;
    }
    for (const domain of actual.keys()) {
      if (desired.has(domain)) continue;
      if (await proxy.removeRoute(domain)) outcome.removed += 1;
    }
    const changed = outcome.added + outcome.updated + outcome.removed + outcome.removedContainers > 0;
    logger[changed ? 'info' : 'debug'](outcome, 'route keeper: routes reconciled');
    return outcome;
  }

  /** Domain → route, from the containers that should be reachable. */
  private desiredRoutes(all: ManagedContainer[]): Map<string, ProxyRoute> {
    const desired = new Map<string, { route: ProxyRoute; container: ManagedContainer }>();
    for (const container of all) {
      if (!ROUTED_STATES.has(container.state) || !container.upstream || !container.domain) continue;
      let domain: string;
      try {
        domain = parseDomain(container.domain);
      } catch {
        this.options.logger.warn({ container: container.name, domain: container.domain }, 'route keeper: container has an invalid domain label; no route');
        continue;
      }
      if (this.options.siteDomain !== undefined && !isUnderSiteDomain(domain, this.options.siteDomain)) {
        this.options.logger.warn({ container: container.name, domain, siteDomain: this.options.siteDomain }, 'route keeper: container domain is not under the site domain; no route');
        continue;
      }
      const existing = desired.get(domain);
      // Two containers claiming one domain: the running one wins, then the newest.
      if (existing && rank(existing.container) >= rank(container)) continue;
      desired.set(domain, { route: { domain, upstream: container.upstream, projectId: container.projectId }, container });
    }
    return new Map([...desired].map(([domain, { route }]) => [domain, route]));
  }

  /**
   * Queues a sync of the event's domain. Events that arrive while the keeper is busy wait
   * together and are synced in one step (30 containers started at once: one container list,
   * one read of Caddy's routes, and the changes go to the proxy together), never on a timer.
   */
  private onContainerEvent(event: ManagedContainerEvent): void {
    let domain: string;
    try {
      domain = parseDomain(event.domain);
    } catch {
      return;
    }
    this.pendingDomains.set(domain, event.action);
    this.queuedSync ??= this.enqueue(async () => {
      this.queuedSync = undefined;
      const domains = new Map(this.pendingDomains);
      this.pendingDomains.clear();
      await this.guard(`route update after container events (${[...domains.keys()].join(', ')})`, () => this.syncDomains(domains));
    });
  }

  /** Brings the routes of these domains (domain → the last event's action) in line with their containers. */
  private async syncDomains(domains: ReadonlyMap<string, string>): Promise<void> {
    const { containers, proxy, logger } = this.options;
    const wanted = this.desiredRoutes((await containers.list()).filter((container) => domains.has(container.domain.trim().toLowerCase())));
    const routes = wanted.size > 0 ? await proxy.listRoutes() : [];
    await Promise.all(
      [...domains].map(async ([domain, action]) => {
        const route = wanted.get(domain);
        if (route) {
          const current = routes.filter((existing) => existing.domain === domain);
          if (current.length === 1 && sameRoute(current[0], route)) return;
          const { created } = await proxy.upsertRoute(route);
          logger.info({ domain, upstream: route.upstream, action, created }, 'route keeper: route set after a container event');
        } else if (await proxy.removeRoute(domain)) {
          logger.info({ domain, action }, 'route keeper: route removed after a container event');
        }
      }),
    );
  }

  /** Follows the engine's events; reopens the stream with backoff and reconciles what was missed. */
  private async followEvents(): Promise<void> {
    const { signal } = this.abort;
    const maxBackoffMs = this.options.maxBackoffMs ?? 30_000;
    let backoffMs = 500;
    let opened = false;
    while (!signal.aborted) {
      const startedAt = Date.now();
      try {
        if (opened) void this.reconcile();
        opened = true;
        await this.options.containers.watch((event) => {
          this.options.onEvent?.(event);
          this.onContainerEvent(event);
        }, signal);
        if (Date.now() - startedAt > 10_000) backoffMs = 500;
      } catch (error) {
        this.partsAway.warn('event stream', { err: error, retryInMs: backoffMs }, 'route keeper: Docker event stream failed; reopening');
      }
      if (signal.aborted) break;
      await sleep(backoffMs, undefined, { signal }).catch(() => undefined);
      backoffMs = Math.min(backoffMs * 2, maxBackoffMs);
    }
  }
}

function sameRoute(a: ProxyRoute | undefined, b: ProxyRoute): boolean {
  return a !== undefined && a.upstream === b.upstream && a.projectId === b.projectId;
}

function rank(container: ManagedContainer): number {
  return (container.state === 'running' ? 1e15 : 0) + container.createdAt.getTime();
}

function isDockerUnreachable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && ['ECONNREFUSED', 'ENOENT', 'EACCES', 'ECONNRESET', 'EPIPE'].includes(code);
}
