import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Server } from 'node:http';
import { dbAdminOnAppOrigin, loadConfig, ConfigError, type Config } from './config.ts';
import { createLogger } from './logger.ts';
import { forJournal } from '@devplein/server-kit/journald-log';
import { createKnex, migrate } from './db/knex.ts';
import { createAgentClient } from './agent/agent-client.ts';
import { createAgentFleet } from './agent/agent-fleet.ts';
import { recordPinnedCertificateSeen, seedAgentLinks } from './agent-links/agent-link-store.ts';
import { FleetLinks } from './agent-links/fleet-links.ts';
import { agentCertificatePaths } from './agent/link-certificates.ts';
import { createRealtime } from './realtime/pusher.ts';
import { pruneExpiredSessions } from './commands/destroy-sessions.ts';
import { createApp } from './app.ts';
import { IdentityCache } from './auth/identity-cache.ts';
import { adminGrantsByName } from './auth/group-mapping.ts';
import { startIdentityNotices } from './auth/identity-notices.ts';
import { startBackgroundWork } from './background-work.ts';
import { createAppServices } from './app-services.ts';
import { createUnavailableAgentClient } from './agent/unavailable-agent-client.ts';
import { createCourseFileStore } from './storage/course-file-store.ts';
import { createSecretBox } from './crypto/secret-box.ts';
import type { SchoolProvider } from './auth/school-login.ts';
import type { Logger } from 'pino';
import { createControlPlaneMetrics } from './metrics/metrics.ts';
import { startMetricsServer, type RunningMetricsServer } from './metrics/metrics-server.ts';
import { registerControlPlaneGauges } from './metrics/operator-gauges.ts';
import { controlPlaneHealth } from './metrics/health-report.ts';

/** Outside production a random session secret is kept in the data dir, so sessions survive restarts. */
function developmentSessionSecret(dataDir: string): string {
  const file = path.join(dataDir, 'session-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

/** The agent's mTLS files: configured paths, or the development certificates `npm start` makes. */
function agentCertificates(config: Config): { ca: Buffer; cert: Buffer; key: Buffer } | null {
  const paths = agentCertificatePaths(config);
  if (!paths || ![paths.ca, paths.cert, paths.key].every((file) => existsSync(file))) return null;
  return { ca: readFileSync(paths.ca), cert: readFileSync(paths.cert), key: readFileSync(paths.key) };
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(process.env, () =>
      process.env.NODE_ENV === 'production' ? '' : developmentSessionSecret(process.env.DATA_DIR ?? './data'),
    );
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(forJournal(`${error.message}\n`, 3, 2));
      process.exit(78);
    }
    throw error;
  }
  const logger = createLogger(config.LOG_LEVEL);
  // An admin by a group's display name can be self-granted where students may make groups (issue 35).
  for (const entry of config.groupSync ? adminGrantsByName(config.groupSync.mapping) : []) {
    logger.warn(
      { file: config.OIDC_GROUPS_MAPPING_FILE, value: entry.value },
      'OIDC_GROUPS_MAPPING_FILE: an entry grants admin by a value that does not look like an immutable id (an Entra ID object id, a SURFconext entitlement urn:…); where students may create groups (Entra ID lets every user by default) one can name a group so and become admin. Map the group\'s object id instead (docs/operations.md, Groepen uit de identity provider)',
    );
  }
  const knex = createKnex({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR });
  await migrate(knex);

  // The process's metrics, recorded into by the agent clients, the capturer and the HTTP middleware.
  const metrics = createControlPlaneMetrics();
  const certificates = agentCertificates(config);
  if (!certificates) logger.warn('no agent certificates configured: every agent is reported unreachable');
  for (const problem of dbAdminOnAppOrigin(config)) logger.warn(`${problem}: give phpMyAdmin a host name of its own (docs/operations.md, "phpMyAdmin on its own origin")`);
  // The links live in agent_links (migration 0014): the configured ones are seeded, joined ones added by invitation.
  await seedAgentLinks(knex, config.agentLinks);
  const fleetLinks = new FleetLinks({
    knex,
    defaults: { studentDbHost: config.STUDENT_DB_HOST, studentDbPort: config.STUDENT_DB_PORT, dbAdminUrl: config.DB_ADMIN_URL },
    logger: logger.child({ component: 'agent-links' }),
    makeClient: (link) => {
      // One clearing at a time per client; a failed one is tried again at the next handshake.
      let clearing: 'no' | 'running' | 'done' = 'no';
      const onPinnedSeen = () => {
        if (!link.fingerprint || clearing !== 'no') return;
        clearing = 'running';
        recordPinnedCertificateSeen(knex, link.name, link.fingerprint).then(
          (cleared) => {
            clearing = 'done';
            if (cleared) logger.info({ host: link.name }, 'agent seen with its renewed certificate: the previous one is no longer accepted');
          },
          (error: unknown) => {
            clearing = 'no';
            logger.warn({ err: error, host: link.name }, 'the previous certificate of a renewed agent could not be cleared (tried again at the next handshake)');
          },
        );
      };
      return certificates
        ? createAgentClient({
            address: link.address,
            serverName: link.serverName,
            caPem: certificates.ca,
            certPem: certificates.cert,
            keyPem: certificates.key,
            pinnedFingerprint: link.fingerprint,
            previousFingerprint: link.previousFingerprint,
            // The agent switched to its renewed certificate: the one it renewed from goes (issue 35).
            onPinnedSeen,
            deadlineMs: config.AGENT_DEADLINE_MS,
            metrics,
            host: link.name,
            logger: logger.child({ component: 'agent-client', host: link.name }),
          })
        : createUnavailableAgentClient('geen mTLS-certificaten voor de host agent ingesteld (AGENT_TLS_CA/CERT/KEY)');
    },
  });
  const agents = createAgentFleet(await fleetLinks.initialLinks(), config.SITE_DOMAIN);
  if (!agents.links.some((link) => link.siteDomain === config.SITE_DOMAIN)) {
    logger.warn({ siteDomain: config.SITE_DOMAIN, linked: agents.links.map((link) => link.siteDomain) }, 'SITE_DOMAIN is no linked dev server\'s site domain (yet): new students go to the first one');
  }
  agents.start();

  const realtime = createRealtime({
    appId: config.REALTIME_APP_ID,
    key: config.REALTIME_KEY,
    secret: config.REALTIME_SECRET,
    host: config.REALTIME_HOST,
    port: config.REALTIME_PORT,
    useTLS: config.REALTIME_TLS,
  });

  // Imported only with DEV_LOGIN: production never loads oidc-provider.
  const devIdentityProvider = config.useDevIdentityProvider
    ? (await import('./auth/dev-identity-provider.ts')).createDevIdentityProvider({
        appUrl: config.appUrl,
        providerName: config.OIDC_PROVIDER_NAME,
        knex,
        logger: logger.child({ component: 'dev-idp' }),
        nodeEnv: config.NODE_ENV,
        cookieKeys: [config.sessionSecret],
        endSession: config.DEV_LOGIN_END_SESSION,
      })
    : undefined;
  const schoolProvider: SchoolProvider = devIdentityProvider
    ? {
        name: config.OIDC_PROVIDER_NAME,
        issuer: devIdentityProvider.issuer,
        clientId: devIdentityProvider.clientId,
        clientSecret: devIdentityProvider.clientSecret,
      }
    : {
        name: config.OIDC_PROVIDER_NAME,
        issuer: config.OIDC_ISSUER as string,
        clientId: config.OIDC_CLIENT_ID as string,
        clientSecret: config.OIDC_CLIENT_SECRET as string,
      };

  const courseFiles = createCourseFileStore(path.join(config.DATA_DIR, 'course-files'));
  const identity = new IdentityCache();
  const identityNotices = await startIdentityNotices({ knex, databaseUrl: config.DATABASE_URL, cache: identity, logger: logger.child({ component: 'identity-cache' }) });
  // A link joined or revoked (here, by `devplein agent …`, or by another replica) reloads the
  // fleet on migration 0014's notice; the timer is the safety net for a notice lost while the
  // listening connection was down.
  const reloadLinks = () => void fleetLinks.reload(agents);
  const stopLinkNotices = identity.onAgentLinksChanged(reloadLinks);
  const linkSafetyNet = setInterval(reloadLinks, 60_000);
  linkSafetyNet.unref();
  const secrets = createSecretBox(config.encryptionKey);
  const baseDeps = { config, knex, logger, agents, realtime, schoolProvider, devIdentityProvider, courseFiles, secrets, identity, identityNotices, metrics };
  // The composition root: one of each long-lived service, shared by the routes, commands and background work.
  const services = createAppServices(baseDeps);
  const app = createApp({ ...baseDeps, services });
  const server: Server = app.listen(config.PORT, config.HOST, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.PORT;
    logger.info({ port, url: config.appUrl, devIdentityProvider: Boolean(devIdentityProvider) }, 'listening');
  });
  server.keepAliveTimeout = 65_000;
  const background = startBackgroundWork({ agents, logger, knex, config, services });

  // Prometheus metrics and /healthz on their own listener (never the public app port). A port
  // that is taken is logged, not fatal: the app itself still serves.
  let metricsServer: RunningMetricsServer | undefined;
  if (config.metricsListen) {
    registerControlPlaneGauges(metrics.registry, { knex, certificatePems: certificates, logger: logger.child({ component: 'metrics' }) });
    try {
      metricsServer = await startMetricsServer({
        listen: config.metricsListen,
        metrics,
        agents,
        health: () => controlPlaneHealth({ knex, agents }),
        logger: logger.child({ component: 'metrics' }),
      });
      logger.info({ listen: config.metricsListen, port: metricsServer.port }, 'metrics listening');
    } catch (error) {
      logger.error({ err: error, listen: config.metricsListen }, 'metrics listener could not start');
    }
  }

  const pruning = setInterval(() => {
    pruneExpiredSessions(knex).catch((error: unknown) => logger.warn({ err: error }, 'session pruning failed'));
  }, 10 * 60_000);
  pruning.unref();

  installShutdown({ server, logger, endStreams: () => services.responseStreams.endAll(), close: async () => {
    clearInterval(pruning);
    clearInterval(linkSafetyNet);
    stopLinkNotices();
    await metricsServer?.close();
    await background.stop();
    agents.close();
    await identityNotices.stop();
    await knex.destroy();
  } });
}

/**
 * SIGTERM/SIGINT: stop accepting, end the open log/pull streams, let in-flight requests finish
 * (10 s at most), then close the rest (event relay, agent link, database).
 */
function installShutdown(options: { server: Server; logger: Logger; endStreams: () => void; close: () => Promise<void> }): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    options.logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      options.logger.warn('in-flight requests did not finish in time');
      options.server.closeAllConnections();
    }, 10_000);
    force.unref();
    // Keep-alive connections become idle one by one as their last request ends; close each then,
    // or server.close() waits for their keep-alive timeout.
    const sweep = setInterval(() => options.server.closeIdleConnections(), 100);
    options.server.close(() => {
      clearInterval(sweep);
      options
        .close()
        .catch((error: unknown) => options.logger.error({ err: error }, 'shutdown error'))
        .finally(() => process.exit(0));
    });
    options.endStreams();
    options.server.closeIdleConnections();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`control plane failed to start: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
