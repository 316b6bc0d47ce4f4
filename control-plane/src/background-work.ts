import type { AppDeps } from './app-context.ts';
import type { ContainerApi } from './agent/clients/container.ts';
import type { ContainerEventView } from './agent/container-views.ts';
import { createContainerEventRelay, type ContainerEventRelay } from './agent/container-event-relay.ts';
import type { AgentLink } from './agent/agent-fleet.ts';
import { startThumbnailScheduler } from './jobs/thumbnail-scheduler.ts';
import { startUnapprovedContainersJob } from './jobs/unapproved-containers.ts';
import { startHostAccessRetry } from './jobs/host-access-retry.ts';
import { startHostSampler } from './jobs/host-sampler.ts';
import { recordAutoStops } from './commands/record-host-sample.ts';
import { containersPlacedOn } from './queries/container-product-states.ts';

/** The schedules and relays that run beside the HTTP server for the app's lifetime; main.ts stops them on shutdown. */
export interface BackgroundWork {
  /** Resolves once the running git deploys recorded that they were stopped. */
  stop(): Promise<void>;
}

/** The container API with every event of watchContainerEvents also handed to `tap` (the relay stays unaware). */
function tappedContainers(containers: ContainerApi, tap: (event: ContainerEventView) => void): ContainerApi {
  return {
    ...containers,
    watchContainerEvents: (filter, options) => ({
      async *[Symbol.asyncIterator]() {
        for await (const event of containers.watchContainerEvents(filter, options)) {
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
 * containers of projects that are not approved (UNAPPROVED_RECONCILE_CRON) and the teachers'
 * overview sampler (HOST_SAMPLE_CRON: host samples, idle auto-stops, retention). Never throws; a relay
 * logs and reconnects on its own, unaware of the others. The capturer, the notices and the deploy
 * queue are the app's (AppServices), shared with the routes, so a site is captured once at a time.
 */
export function startBackgroundWork(deps: Pick<AppDeps, 'agents' | 'logger' | 'knex' | 'config' | 'services'>): BackgroundWork {
  const { knex, config } = deps;
  const scheduler = startThumbnailScheduler({
    knex,
    capturer: deps.services.thumbnails,
    logger: deps.logger.child({ component: 'thumbnail-scheduler' }),
    cronExpression: config.THUMBNAIL_CRON,
    afterStartMs: config.THUMBNAIL_AFTER_START_S * 1000,
  });
  const autoStopLogger = deps.logger.child({ component: 'idle-auto-stops' });
  // The overview's auto-stop history (the sampler also reads them from the listings, for events missed).
  const recordAutoStopEvent = (host: string, event: ContainerEventView) => {
    if (!event.autoStop) return;
    const sighting = { containerId: event.containerId, containerName: event.containerName, projectId: event.projectId, autoStop: event.autoStop };
    recordAutoStops(knex, host, [sighting]).catch((error: unknown) => autoStopLogger.warn({ err: error, host }, 'idle auto-stop not recorded'));
  };
  // One relay per link's client; a link that joins gets one, a revoked one's stops with it.
  const relays = new Map<AgentLink['client'], ContainerEventRelay>();
  const startRelay = (link: AgentLink) => {
    const relay = createContainerEventRelay({
      agent: {
        containers: tappedContainers(link.client.containers, (event) => {
          scheduler.onContainerEvent(event);
          if (event.autoStop) recordAutoStopEvent(link.name, event);
        }),
      },
      notices: deps.services.containerNotices,
      logger: deps.logger.child({ component: 'container-event-relay', host: link.name }),
      // Only this server's projects: an agent cannot speak for another server's (issue 35).
      // The first link holds the rows without a host; which link is first is read at each lookup.
      placed: (names) => containersPlacedOn(knex, names, { name: link.name, isDefault: deps.agents.link(null).client === link.client }),
    });
    relays.set(link.client, relay);
    relay.start();
  };
  deps.agents.links.forEach(startRelay);
  const stopFollowingLinks = deps.agents.onChange((added, removed) => {
    for (const link of removed) {
      relays.get(link.client)?.stop();
      relays.delete(link.client);
    }
    added.forEach(startRelay);
  });
  const unapproved = startUnapprovedContainersJob(
    { knex, agents: deps.agents, logger: deps.logger.child({ component: 'unapproved-containers' }) },
    config.UNAPPROVED_RECONCILE_CRON,
  );
  const accessRetry = startHostAccessRetry({
    knex,
    agents: deps.agents,
    logger: deps.logger.child({ component: 'host-access-retry' }),
    locks: deps.services.locks,
    cronExpression: config.HOST_ACCESS_RETRY_CRON,
  });
  const sampler =
    config.HOST_SAMPLE_CRON === 'off'
      ? null
      : startHostSampler({ knex, agents: deps.agents, logger: deps.logger.child({ component: 'host-sampler' }) }, config.HOST_SAMPLE_CRON);
  // Deploys a previous process left: running ones failed as interrupted, queued ones run now.
  const deploys = deps.services.deploys;
  deploys.recover().catch((error: unknown) => deps.logger.error({ err: error }, 'deploys of the previous process not recovered'));
  return {
    stop: async () => {
      const deploysStopped = deploys.stop();
      void sampler?.stop();
      stopFollowingLinks();
      for (const relay of relays.values()) relay.stop();
      void scheduler.stop();
      void unapproved.stop();
      void accessRetry.stop();
      await deploysStopped;
    },
  };
}
