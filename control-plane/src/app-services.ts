import { KeyedLock } from '@devplein/server-kit/keyed-lock';
import type { AppBaseDeps } from './app-context.ts';
import { ContainerNotices } from './services/container-notices.ts';
import { ContainerStatsWatches } from './services/container-stats-watches.ts';
import { DeployKeys } from './services/deploy-keys.ts';
import { DeployQueue } from './services/deploy-queue.ts';
import { PerUserSlots } from './services/per-user-slots.ts';
import { ResponseStreams } from './services/response-streams.ts';
import { SshCommandResolver } from './services/ssh-commands.ts';
import { ThumbnailCapturer } from './services/thumbnail-capturer.ts';
import { ProviderDiscovery } from './auth/discovery.ts';

/**
 * One lock per key for work that must not overlap; each holds only inside this process, which
 * is why the app has one of each (docs/spec-deviations.md, the deploy queue's row).
 */
export interface AppLocks {
  /** A user's database create or drop: the name check, the agent call and the insert belong together. */
  userDatabases: KeyedLock<number>;
  /** A user's POST /api/vpn: a double click must not make a second peer. */
  userVpns: KeyedLock<number>;
  /** `project:{id}` and `user:{id}`: one run of access changes at a time (the retry job and a request may meet). */
  access: KeyedLock<string>;
}

/**
 * The app's long-lived services: made once by main.ts (createAppServices) and handed to routes,
 * commands and jobs through AppDeps, so every part of the process shares the same queue, sender,
 * watches and locks. Nothing of this kind lives at module level (eslint.config.js forbids it).
 */
export interface AppServices {
  /** The git deploys: one at a time per project; the rows are the truth. */
  deploys: DeployQueue;
  /** The dev servers' public deploy keys, remembered once asked. */
  deployKeys: DeployKeys;
  /** The one sender of DockerEventSent messages (the event relays and the routes share what was sent last). */
  containerNotices: ContainerNotices;
  /** On-demand and scheduled thumbnail captures: one per project at a time, bounded per dev server. */
  thumbnails: ThumbnailCapturer;
  /** One agent stats watch per container for every tab that polls it. */
  statsWatches: ContainerStatsWatches;
  /** Log follows and pulls answering now; ended at shutdown so the server can close. */
  responseStreams: ResponseStreams;
  /** The `ssh student@… -p …` lines, with each dev server's login host remembered. */
  sshCommands: SshCommandResolver;
  /** Log follows open per user (LOG_FOLLOW_PER_USER). */
  logFollows: PerUserSlots;
  /** The school provider's OpenID metadata, discovered on first use (sign-in and logout). */
  providerDiscovery: ProviderDiscovery;
  locks: AppLocks;
}

/** The services of one app, built from its base deps; nothing starts running here (background-work.ts starts the schedules). */
export function createAppServices(deps: AppBaseDeps): AppServices {
  const { knex, agents, logger, config } = deps;
  return {
    deploys: new DeployQueue({ knex, agents, realtime: deps.realtime, config, secrets: deps.secrets, logger: logger.child({ component: 'deploy-queue' }) }),
    deployKeys: new DeployKeys(agents, logger.child({ component: 'deploy-keys' })),
    containerNotices: new ContainerNotices(deps.realtime, logger.child({ component: 'container-notices' })),
    thumbnails: new ThumbnailCapturer({
      knex,
      agents,
      logger: logger.child({ component: 'thumbnails' }),
      settings: { concurrency: config.THUMBNAIL_CONCURRENCY, timeoutMs: config.THUMBNAIL_TIMEOUT_MS },
      metrics: deps.metrics,
    }),
    statsWatches: new ContainerStatsWatches({ agents, logger: logger.child({ component: 'container-stats' }) }),
    responseStreams: new ResponseStreams(),
    sshCommands: new SshCommandResolver(agents, logger.child({ component: 'ssh-commands' })),
    logFollows: new PerUserSlots(config.LOG_FOLLOW_PER_USER),
    providerDiscovery: new ProviderDiscovery(),
    locks: { userDatabases: new KeyedLock(), userVpns: new KeyedLock(), access: new KeyedLock() },
  };
}
