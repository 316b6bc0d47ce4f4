import type { Logger } from 'pino';
import { ThrottledWarnings } from '@devplein/server-kit/throttled-warnings';
import { NOT_CREATED, UNREACHABLE } from '../lib/container-states.ts';
import type { AgentClient } from './agent-client.ts';
import { defaultBackoff } from './agent-client.ts';
import { toAgentError } from './agent-error.ts';
import { type BackoffPolicy, backoffDelay } from './backoff.ts';
import type { ContainerEventView } from './container-views.ts';

export interface ContainerEventRelayOptions {
  agent: Pick<AgentClient, 'containers'>;
  /**
   * The app's container channels' sender (AppServices.containerNotices), shared with the routes
   * and the other dev servers' relays: a message equal to the last on its channel is sent once.
   */
  notices: { send(name: string, message: string): Promise<void> };
  logger: Logger;
  /**
   * Of these container (= project) names, those whose project is placed on this relay's dev
   * server, each with the product state to show instead of Docker's (a project that is not
   * approved, so the live channel says what GET /api/user/dockers says) or null (Docker's
   * state stands). A name left out is not this server's: its events and listed states are
   * dropped, so an agent can only speak for its own projects (issue 35).
   */
  placed: (names: readonly string[]) => Promise<ReadonlyMap<string, string | null>>;
  backoff?: Partial<BackoffPolicy>;
  /** A stream that lived this long counts as healthy: the next failure starts the backoff anew. */
  healthyAfterMs?: number;
}

/** What the relay does for the app: start at start-up, stop at shutdown. */
export interface ContainerEventRelay {
  start(): void;
  stop(): void;
  /** Streams opened so far (for tests and logs). */
  readonly connections: number;
}

/**
 * Relays the agent's container events to the browsers: one WatchContainerEvents stream (managed
 * containers only) for the whole control plane; each event becomes `DockerEventSent {message:
 * state}` on `private-container.{name}` ('Nog niet gecreëerd' after destroy; the product state
 * instead for a project that is not approved; a message equal to the last on that channel is
 * sent once: services/container-notices.ts). Only containers of projects placed on this dev
 * server are relayed (`placed`): a compromised agent cannot write state text onto another
 * server's projects, nor onto names no project has. When the stream
 * breaks it asks the agent for the states at once (events missed meanwhile are not replayed):
 * if the agent, or its Docker engine, does not answer, every container the pages were told
 * about becomes 'onbereikbaar' — the host's state is unknown, never 'exited'. It reconnects with
 * the link's backoff and resyncs again. Nothing here throws: failures are logged and retried.
 */
export function createContainerEventRelay(options: ContainerEventRelayOptions): ContainerEventRelay {
  const policy: BackoffPolicy = { ...defaultBackoff, ...options.backoff };
  const healthyAfterMs = options.healthyAfterMs ?? 30_000;
  const logger = options.logger;
  /** Last state sent per container name, so a resync only sends what changed. */
  const lastState = new Map<string, string>();
  const resyncFailures = new ThrottledWarnings(logger);
  /** One key: an agent that floods names of other servers' projects must not flood the log (nor this map). */
  const foreignEvents = new ThrottledWarnings(logger);
  let running = false;
  let generation = 0;
  let controller: AbortController | null = null;
  let timer: NodeJS.Timeout | null = null;
  let wake: (() => void) | null = null;
  let connections = 0;

  const notices = options.notices;
  const nonePlaced: ReadonlyMap<string, string | null> = new Map();

  /**
   * Which of these containers are this server's, with their product states; null when the
   * lookup fails (then nothing the agent said is relayed: it could be another server's project).
   */
  async function placed(names: readonly string[]): Promise<ReadonlyMap<string, string | null> | null> {
    if (names.length === 0) return nonePlaced;
    try {
      return await options.placed(names);
    } catch (error) {
      logger.warn({ err: error }, 'placement of containers not known');
      return null;
    }
  }

  async function send(name: string, state: string): Promise<void> {
    lastState.set(name, state);
    await notices.send(name, state);
  }

  /** The relayed events' sends, in the stream's order (each waits for the lookups before it). */
  let relayed: Promise<void> = Promise.resolve();

  /**
   * Relays one event without holding up the stream: its product-state lookup starts at once
   * (beside those of the events before it), its message is handed to the notices in the
   * stream's order, and nothing waits for the realtime server's answer — messages that queue
   * meanwhile go out together (realtime/trigger-queue.ts).
   */
  function relay(event: ContainerEventView): void {
    const name = event.containerName;
    if (!name) return;
    const state = event.action === 'destroy' ? NOT_CREATED : event.state;
    if (!state) return;
    const placement = placed([name]);
    relayed = relayed
      .then(() => placement)
      .then((ours) => {
        // Another server's project (or one not known): this agent may not speak for it.
        if (!ours?.has(name)) {
          if (ours) foreignEvents.warn('foreign', { container: name }, 'container event for a project not placed on this dev server dropped');
          return;
        }
        void send(name, ours.get(name) ?? state);
      });
  }

  /**
   * Asks the agent for every managed container and sends the states the pages were not told
   * yet; `announce: false` only records them (the first connection: the pages loaded these
   * states themselves). When the agent does not answer, the containers become 'onbereikbaar'.
   */
  async function resync(announce = true): Promise<void> {
    let containers;
    try {
      containers = await options.agent.containers.listContainers({ includeUnmanaged: false });
      resyncFailures.clear();
    } catch (error) {
      const agentError = toAgentError(error);
      // The agent or its Docker engine away: every retry fails alike until it is back.
      resyncFailures.warn(agentError.code, { code: agentError.code, error: agentError.message }, 'container resync failed');
      if (agentError.unreachable) await markUnreachable();
      return;
    }
    const ours = await placed([...containers.map((container) => container.name), ...lastState.keys()]);
    // Not known which containers are this server's: the next resync (after a reconnect) says it.
    if (!ours) return;
    const present = new Set<string>();
    for (const container of containers) {
      // A container of another server's project (or none): not this agent's to report.
      if (!ours.has(container.name)) continue;
      present.add(container.name);
      const shown = ours.get(container.name) ?? container.state;
      if (!announce) {
        // An event relayed meanwhile is newer than this listing.
        if (!lastState.has(container.name)) lastState.set(container.name, shown);
      } else if (lastState.get(container.name) !== shown) {
        await send(container.name, shown);
      }
    }
    if (!announce) return;
    for (const [name, state] of [...lastState]) {
      if (present.has(name)) continue;
      // Told before, since no longer placed here (deleted, or moved): no longer this relay's to tell.
      if (!ours.has(name)) {
        lastState.delete(name);
        continue;
      }
      const shown = ours.get(name) ?? NOT_CREATED;
      if (state !== shown) await send(name, shown);
    }
  }

  /** The host's state is unknown: say so once on every channel the pages were told a state on. */
  async function markUnreachable(): Promise<void> {
    // Only channels this server's events or listings were relayed on (lastState): its own projects.
    const ours = (await placed([...lastState.keys()])) ?? nonePlaced;
    for (const [name, state] of [...lastState]) {
      const shown = ours.get(name) ?? UNREACHABLE;
      if (state !== shown) await send(name, shown);
    }
  }

  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, ms);
      timer.unref();
    });

  async function loop(myGeneration: number): Promise<void> {
    let failures = 0;
    while (running && myGeneration === generation) {
      const openedAt = Date.now();
      controller = new AbortController();
      const reconnect = connections > 0;
      connections += 1;
      try {
        const events = options.agent.containers.watchContainerEvents({ includeUnmanaged: false }, { signal: controller.signal });
        void resync(reconnect);
        for await (const event of events) {
          failures = 0;
          relay(event);
        }
        if (running && myGeneration === generation) logger.info('container event stream ended; reconnecting');
      } catch (error) {
        const agentError = toAgentError(error);
        // Once per streak of failures at warn level; the retries after it at debug.
        const log = failures === 0 ? logger.warn.bind(logger) : logger.debug.bind(logger);
        log({ code: agentError.code, details: agentError.details }, 'container event stream failed');
      }
      // The events relayed so far go out before the resync, which is newer than they are.
      await relayed;
      if (!running || myGeneration !== generation) return;
      // Whatever broke the stream may have changed (or hidden) the host's state: ask now, not after the backoff.
      await resync();
      if (!running || myGeneration !== generation) return;
      if (Date.now() - openedAt >= healthyAfterMs) failures = 0;
      failures += 1;
      await sleep(backoffDelay(failures, policy));
    }
  }

  return {
    get connections() {
      return connections;
    },
    start() {
      if (running) return;
      running = true;
      generation += 1;
      const myGeneration = generation;
      loop(myGeneration).catch((error: unknown) => logger.error({ err: error }, 'container event relay stopped unexpectedly'));
    },
    stop() {
      running = false;
      generation += 1;
      controller?.abort();
      if (timer) clearTimeout(timer);
      wake?.();
      timer = null;
      wake = null;
    },
  };
}
