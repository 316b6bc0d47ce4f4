import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type Pusher from 'pusher';
import type { Config } from './config.ts';
import type { AgentFleet } from './agent/agent-fleet.ts';
import type { SchoolProvider } from './auth/school-login.ts';
import type { DevIdentityProvider } from './auth/dev-identity-provider.ts';
import type { CourseFileStore } from './storage/course-file-store.ts';
import type { SecretBox } from './crypto/secret-box.ts';
import type { IdentityCache } from './auth/identity-cache.ts';
import type { IdentityNotices } from './auth/identity-notices.ts';
import type { ControlPlaneMetrics } from './metrics/metrics.ts';
import type { AppServices } from './app-services.ts';

export type { AppLocks, AppServices } from './app-services.ts';

/** What the app's services are built from; main.ts makes it. */
export interface AppBaseDeps {
  config: Config;
  knex: Knex;
  logger: Logger;
  /** Every dev server's agent link. */
  agents: AgentFleet;
  realtime: Pusher;
  schoolProvider: SchoolProvider;
  devIdentityProvider?: DevIdentityProvider;
  /** Uploaded course files (level content). */
  courseFiles: CourseFileStore;
  /** Encrypts secrets stored at rest (passwords shown again later). */
  secrets: SecretBox;
  /** Sessions, current users and their level progress between requests (auth/identity-cache.ts). */
  identity: IdentityCache;
  /** What keeps `identity` in step with the database; `settle()` before a signed-in request reads it. */
  identityNotices: IdentityNotices;
  /** The process's Prometheus metrics (the agent clients, the capturer and the HTTP middleware record into them). */
  metrics: ControlPlaneMetrics;
}

/** What the app, its routers, commands and background work are built from; main.ts makes it. */
export interface AppDeps extends AppBaseDeps {
  /** The long-lived services (deploy queue, container notices, captures, watches, locks): one of each per app. */
  services: AppServices;
}

// The request-side types, in a file of their own that imports nothing from auth/ (auth and the middlewares use it).
export type { AppContext, AppMiddleware, AppRouter, AppState } from './http-context.ts';
