import Koa from 'koa';
import session from 'koa-session';
import { bodyParser } from '@koa/bodyparser';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type Pusher from 'pusher';
import type { AppMiddleware, AppRouter, AppState } from './app-context.ts';
import type { Config } from './config.ts';
import type { AgentFleet } from './agent/agent-fleet.ts';
import { requestContext } from './middlewares/request-context.ts';
import { securityHeaders } from './middlewares/security-headers.ts';
import { signInRateLimit, writeRateLimit } from './middlewares/rate-limit.ts';
import { createSessionStore, touchSession } from './auth/session-store.ts';
import { createCsrf } from './auth/csrf.ts';
import { loadUser } from './middlewares/authenticate.ts';
import { signedInNoStore } from './middlewares/no-store.ts';
import { schoolSignIn, sessionCookieName, type SchoolProvider } from './auth/school-login.ts';
import { sessionRoutes } from './routes/session/session.ts';
import { DEV_IDP_PATH, type DevIdentityProvider } from './auth/dev-identity-provider.ts';
import { userRoutes } from './routes/user/user.ts';
import { adminAgentRoutes } from './routes/admin/agent.ts';
import { healthRoutes } from './routes/health/health.ts';
import { broadcastingRoutes } from './routes/broadcasting/broadcasting.ts';
import { singlePageApp } from './web/spa.ts';
import { sitesRoutes } from './routes/sites/sites.ts';
import { miscRoutes } from './routes/misc/misc.ts';
import { levelRoutes } from './routes/levels/levels.ts';
import { sshKeyRoutes } from './routes/ssh-keys/ssh-keys.ts';
import { adminLevelRoutes } from './routes/admin-levels/admin-levels.ts';
import { adminProjectRoutes } from './routes/admin-projects/admin-projects.ts';
import type { CourseFileStore } from './storage/course-file-store.ts';
import type { SecretBox } from './crypto/secret-box.ts';
import { adminUserRoutes } from './routes/admin-users/admin-users.ts';
import { adminTeamRoutes } from './routes/admin-teams/admin-teams.ts';
import { adminGroupRoutes } from './routes/admin-groups/admin-groups.ts';
import { userSearchRoutes } from './routes/user-search/user-search.ts';
import { licenseRoutes } from './routes/licenses/licenses.ts';
import { introductionRoutes } from './routes/introductions/introductions.ts';
import { projectRequestRoutes } from './routes/project-requests/project-requests.ts';
import { adminAuditRoutes } from './routes/admin-audit/admin-audit.ts';
import { HttpError } from './errors.ts';
import { userDockerRoutes, containerCommandDeps } from './routes/user-dockers/user-dockers.ts';
import { wordpressRoutes } from './routes/wordpress/wordpress.ts';
import { dockerImageRoutes } from './routes/docker-images/docker-images.ts';
import { adminDockerRoutes } from './routes/admin-dockers/admin-dockers.ts';
import { createContainerEventRelay } from './agent/container-event-relay.ts';
import { databaseRoutes } from './routes/databases/databases.ts';
import { vpnRoutes } from './routes/vpn/vpn.ts';
import type { ContainerApi } from './agent/host-apis.ts';
import type { ContainerEventView } from './agent/container-views.ts';
import { appThumbnailCapturer } from './commands/capture-thumbnail.ts';
import { startThumbnailScheduler } from './jobs/thumbnail-scheduler.ts';
import { startUnapprovedContainersJob } from './jobs/unapproved-containers.ts';
import { productStatesOfContainers } from './queries/container-product-states.ts';
import { startHostAccessRetry } from './jobs/host-access-retry.ts';
import { DB_ADMIN_SIGNON_PATH, dbAdminRoutes } from './routes/db-admin/db-admin.ts';
import { controlPlaneMetrics } from './metrics/metrics.ts';

export interface AppDeps {
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
}

/** The other protocol's own endpoints (the development provider's token endpoint and forms). */
const csrfExempt = (path: string): boolean => path === DEV_IDP_PATH || path.startsWith(`${DEV_IDP_PATH}/`);

/** Every router of the API and the server pages; the routes × roles test walks this list. */
export function appRouters(deps: AppDeps): AppRouter[] {
  return [
    userRoutes(deps),
    adminAgentRoutes(deps),
    broadcastingRoutes(deps),
    healthRoutes(deps),
    sitesRoutes(deps),
    miscRoutes(deps),
    levelRoutes(deps),
    sshKeyRoutes(deps),
    adminLevelRoutes(deps),
    adminProjectRoutes(deps),
    adminUserRoutes(deps),
    adminTeamRoutes(deps),
    adminGroupRoutes(deps),
    userSearchRoutes(deps),
    licenseRoutes(deps),
    introductionRoutes(deps),
    projectRequestRoutes(deps),
    adminAuditRoutes(deps),
    userDockerRoutes(deps, containerCommandDeps(deps)),
    wordpressRoutes(deps),
    // Before adminDockerRoutes: its /api/admin/dockers/:name would take /api/admin/dockers/images.
    dockerImageRoutes(deps),
    adminDockerRoutes(deps),
    databaseRoutes(deps),
    vpnRoutes(deps),
    dbAdminRoutes(deps),
    sessionRoutes(deps),
  ];
}

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

/** Builds the Koa application; main.ts owns the process around it. */
export function createApp(deps: AppDeps): Koa<AppState> {
  const { config, knex, logger } = deps;
  const secure = config.appUrl.startsWith('https://');
  // Behind one reverse proxy (TRUST_PROXY) the client is the last X-Forwarded-For entry: the one
  // that proxy added. Earlier entries come from the client and could name any address.
  const app = new Koa<AppState>({ proxy: config.TRUST_PROXY, maxIpsCount: 1, keys: [config.sessionSecret] });
  app.silent = true;
  // Outermost: counts and times every request by route template (served on METRICS_LISTEN only).
  app.use(controlPlaneMetrics.httpMiddleware() as unknown as AppMiddleware);

  app.use(
    securityHeaders({
      appUrl: config.appUrl,
      realtime: config.realtimePublic,
      // oidc-provider's own sign-in and logout pages carry inline <style>; only there.
      inlineStylePrefix: deps.devIdentityProvider ? DEV_IDP_PATH : undefined,
    }),
  );
  app.use(requestContext(logger));
  app.use(signInRateLimit({ points: config.RATE_LIMIT_SIGNIN_PER_MINUTE }));
  const sessionLimits = { maxAgeMs: config.sessionMaxAgeMs, idleMs: config.sessionIdleTimeoutMs };
  app.use(
    session(
      {
        key: sessionCookieName(secure),
        maxAge: config.sessionMaxAgeMs,
        httpOnly: true,
        sameSite: 'lax',
        secure,
        signed: true,
        // The row is written when the data changes: at sign-in and when touchSession refreshes
        // the last-seen time (at most once a minute); the store derives the expiry from both.
        rolling: false,
        renew: false,
        store: createSessionStore(knex, sessionLimits),
      },
      app as unknown as Koa,
    ) as unknown as AppMiddleware,
  );
  app.use(touchSession(sessionLimits));
  const parseBody = bodyParser({
    enableTypes: ['json', 'form'],
    jsonLimit: '256kb',
    formLimit: '64kb',
    // Bodies the parser refuses get a Dutch answer: too large → 413, unreadable JSON/form → 400.
    onError: (error) => {
      const type = (error as { type?: unknown }).type;
      if (type === 'entity.too.large') throw new HttpError(413, 'Het verzoek is te groot.');
      throw new HttpError(400, 'Het verzoek kon niet gelezen worden: ongeldige JSON of formuliergegevens.');
    },
  }) as unknown as AppMiddleware;
  app.use(async (ctx, next) => {
    // oidc-provider reads its own request bodies; its interaction form is ours.
    if (csrfExempt(ctx.path) && !ctx.path.startsWith(`${DEV_IDP_PATH}/interaction/`)) return next();
    return parseBody(ctx, next);
  });
  if (deps.devIdentityProvider) app.use(deps.devIdentityProvider.middleware);
  const csrf = createCsrf({ secret: config.sessionSecret, secureCookie: secure });
  // The signon redeem is server to server: a shared secret instead of a session, so no CSRF token.
  app.use(csrf.middleware({ exempt: (path) => csrfExempt(path) || path === DB_ADMIN_SIGNON_PATH }));
  app.use(loadUser(knex));
  app.use(signedInNoStore());
  app.use(writeRateLimit({ points: config.RATE_LIMIT_WRITES_PER_MINUTE }));
  app.use(schoolSignIn({ provider: deps.schoolProvider, appUrl: config.appUrl, knex, logger, secureCookies: secure }));

  for (const router of appRouters(deps)) {
    app.use(router.routes());
    app.use(router.allowedMethods());
  }

  app.use(async (ctx, next) => {
    if (ctx.path.startsWith('/api/') || ctx.path === '/api') throw new HttpError(404, 'Deze API-route bestaat niet.');
    return next();
  });
  app.use(
    singlePageApp({
      webDist: config.WEB_DIST,
      csrfToken: csrf.pageToken,
      ssoProvider: config.OIDC_PROVIDER_NAME,
      siteDomain: config.SITE_DOMAIN,
      siteDomains: deps.agents.links.map((link) => link.siteDomain),
      realtime: { key: config.REALTIME_KEY, ...config.realtimePublic },
      // A student without databases yet gets them on the dev server new students go to.
      database: { adminUrl: deps.agents.forNewUsers.dbAdminUrl, host: deps.agents.forNewUsers.studentDbHost, signon: Boolean(config.DB_ADMIN_SIGNON_URL) },
    }),
  );
  return app;
}
