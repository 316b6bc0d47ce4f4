import type { Logger } from 'pino';
import { ThrottledWarnings } from '@devplein/server-kit/throttled-warnings';
import { NOT_CREATED, UNREACHABLE } from '../lib/container-states.ts';
import { containerNotices, type RealtimeTrigger } from '../realtime/container-notices.ts';
import type { AgentClient } from './agent-client.ts';
import { defaultBackoff } from './agent-client.ts';
import { toAgentError } from './agent-error.ts';
import { type BackoffPolicy, backoffDelay } from './backoff.ts';
import type { ContainerEventView } from './container-views.ts';

export type { RealtimeTrigger } from '../realtime/container-notices.ts';

export interface ContainerEventRelayOptions {
  agent: Pick<AgentClient, 'containers'>;
  realtime: RealtimeTrigger;
  logger: Logger;
  /**
   * The product state to show instead of Docker's for containers whose project is not approved
   * (by name; others left out), so the live channel says what GET /api/user/dockers says.
   */
  productStates?: (names: readonly string[]) => Promise<ReadonlyMap<string, string>>;
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
 * sent once: realtime/container-notices.ts). When the stream
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
  let running = false;
  let generation = 0;
  let controller: AbortController | null = null;
  let timer: NodeJS.Timeout | null = null;
  let wake: (() => void) | null = null;
  let connections = 0;

  const notices = containerNotices(options.realtime, logger);
  const noProductStates: ReadonlyMap<string, string> = new Map();

  /** Product states of these containers (none when the lookup fails: Docker's state is the next best). */
  async function productStates(names: readonly string[]): Promise<ReadonlyMap<string, string>> {
    if (!options.productStates || names.length === 0) return noProductStates;
    try {
      return await options.productStates(names);
    } catch (error) {
      logger.warn({ err: error }, 'product states of containers not known');
      return noProductStates;
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
    const products = productStates([name]);
    relayed = relayed
      .then(() => products)
      .then((shown) => {
        void send(name, shown.get(name) ?? state);
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
    const present = new Set<string>();
    const products = await productStates([...containers.map((container) => container.name), ...lastState.keys()]);
    for (const container of containers) {
      present.add(container.name);
      const shown = products.get(container.name) ?? container.state;
      if (!announce) {
        // An event relayed meanwhile is newer than this listing.
        if (!lastState.has(container.name)) lastState.set(container.name, shown);
      } else if (lastState.get(container.name) !== shown) {
        await send(container.name, shown);
      }
    }
    if (!announce) return;
    for (const [name, state] of [...lastState]) {
      const shown = products.get(name) ?? NOT_CREATED;
      if (!present.has(name) && state !== shown) await send(name, shown);
    }
  }

  /** The host's state is unknown: say so once on every channel the pages were told a state on. */
  async function markUnreachable(): Promise<void> {
    const products = await productStates([...lastState.keys()]);
    for (const [name, state] of [...lastState]) {
      const shown = products.get(name) ?? UNREACHABLE;
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
