import type { AppDeps } from './app-context.ts';
import type { ContainerApi } from './agent/host-apis.ts';
import type { ContainerEventView } from './agent/container-views.ts';
import { createContainerEventRelay } from './agent/container-event-relay.ts';
import { appThumbnailCapturer } from './commands/capture-thumbnail.ts';
import { startThumbnailScheduler } from './jobs/thumbnail-scheduler.ts';
import { startUnapprovedContainersJob } from './jobs/unapproved-containers.ts';
import { startHostAccessRetry } from './jobs/host-access-retry.ts';
import { productStatesOfContainers } from './queries/container-product-states.ts';

/** What runs beside the HTTP server for the app's lifetime; main.ts stops it on shutdown. */
export interface AppServices {
  stop(): void;
}

/** The container API with every event of watchEvents also handed to `tap` (the relay stays unaware). */
function tappedContainers(containers: ContainerApi, tap: (event: ContainerEventView) => void): ContainerApi {
  return {
    ...containers,
    watchEvents: (filter, options) => ({
      async *[Symbol.asyncIterator]() {
        for await (const event of containers.watchEvents(filter, options)) {
          tap(event);
          yield event;
        }
      },
    }),
  };
}

/**
 * Starts the app's background work: one container event relay per dev server (agent events →
 * realtime DockerEventSent), the thumbnail scheduler (nightly captures on THUMBNAIL_CRON, and a capture
 * THUMBNAIL_AFTER_START_S after a container starts, fed by the relay's event stream), the retry of
 * access changes a dev server missed (HOST_ACCESS_RETRY_CRON) and the reconcile that stops
 * containers of projects that are not approved (UNAPPROVED_RECONCILE_CRON). Never throws; a relay
 * logs and reconnects on its own, unaware of the others. The capturer is the one the admin route
 * uses too, so a site is captured once at a time.
 */
export function startAppServices(deps: Pick<AppDeps, 'agents' | 'realtime' | 'logger' | 'knex' | 'config'>): AppServices {
  const { knex, config } = deps;
  const scheduler = startThumbnailScheduler({
    knex,
    capturer: appThumbnailCapturer(deps),
    logger: deps.logger.child({ component: 'thumbnail-scheduler' }),
    cronExpression: config.THUMBNAIL_CRON,
    afterStartMs: config.THUMBNAIL_AFTER_START_S * 1000,
  });
  const relays = deps.agents.links.map((link) =>
    createContainerEventRelay({
      agent: { containers: tappedContainers(link.client.containers, (event) => scheduler.onContainerEvent(event)) },
      realtime: deps.realtime,
      logger: deps.logger.child({ component: 'container-event-relay', host: link.name }),
      productStates: (names) => productStatesOfContainers(knex, names),
    }),
  );
  for (const relay of relays) relay.start();
  const unapproved = startUnapprovedContainersJob(
    { knex, agents: deps.agents, logger: deps.logger.child({ component: 'unapproved-containers' }) },
    config.UNAPPROVED_RECONCILE_CRON,
  );
  const accessRetry = startHostAccessRetry({
    knex,
    agents: deps.agents,
    logger: deps.logger.child({ component: 'host-access-retry' }),
    cronExpression: config.HOST_ACCESS_RETRY_CRON,
  });
  return {
    stop: () => {
      for (const relay of relays) relay.stop();
      void scheduler.stop();
      void unapproved.stop();
      void accessRetry.stop();
    },
  };
}
