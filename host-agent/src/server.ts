import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { CONTRACT_VERSION } from '@devplein/proto/version';
import { AGENT_VERSION } from './agent-version.ts';
import { probeCapabilities } from './capabilities.ts';
import type { AgentConfig } from './config.ts';
import { IptablesContainerFirewall } from './drivers/docker/container-firewall.ts';
import { DockerEngine } from './drivers/docker/engine.ts';
import { EngineDockerDriver } from './drivers/docker/engine-driver.ts';
import { createCaddyProxyDriver } from './drivers/proxy/caddy-proxy-driver.ts';
import { ContainerSshKeys } from './drivers/ssh/container-keys.ts';
import { ContainerSshSessions } from './drivers/ssh/ssh-sessions.ts';
import { clientIdentityInterceptor } from './interceptors/auth.ts';
import { loggingInterceptor } from './interceptors/logging.ts';
import { contractVersionInterceptor } from './interceptors/version.ts';
import { metricsInterceptor } from './interceptors/metrics.ts';
import { createAgentMetrics, type AgentMetrics } from './metrics/metrics.ts';
import { startAgentMetricsServer, type RunningAgentMetricsServer } from './metrics/metrics-server.ts';
import { registerAgentGauges } from './metrics/operator-gauges.ts';
import { IdleStopper } from './jobs/idle-stopper.ts';
import { ProjectTurns } from './projects/project-turns.ts';
import { type IdleTracking, startIdleTracking } from './jobs/idle-tracking.ts';
import { engineManagedContainers } from './drivers/docker/managed-containers.ts';
import { RouteKeeper } from './jobs/route-keeper.ts';
import { ContainerServiceImpl } from './services/container-service.ts';
import { ContainerStatsServiceImpl } from './services/container-stats-service.ts';
import { engineStatsSource, StatsHub } from './drivers/docker/stats-hub.ts';
import { engineSweepSource, StatsSweeper } from './drivers/docker/stats-sweep.ts';
import { LABELS } from './drivers/docker/docker-driver.ts';
import { DatabaseServiceImpl } from './services/database-service.ts';
import { DeployServiceImpl } from './services/deploy-service.ts';
import { HostStatsServiceImpl } from './services/host-stats-service.ts';
import { InfoServiceImpl } from './services/info-service.ts';
import { ProxyServiceImpl } from './services/proxy-service.ts';
import { ScreenshotServiceImpl } from './services/screenshot-service.ts';
import { SshAccessServiceImpl } from './services/ssh-access-service.ts';
import { VpnServiceImpl } from './services/vpn-service.ts';

/** A started agent server. */

/** Longest wait for the project network's start-up check before the agent serves anyway. */
const START_CHECK_TIMEOUT_MS = 20_000;

/** Waits for `work` (its failure is its own to log) or `ms`, whichever comes first. */
async function settleWithin(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work.catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
export interface RunningAgentServer {
  /** The port actually bound (differs from the configured one when that was 0). */
  port: number;
  /**
   * Stops taking calls and waits for running ones (tryShutdown); after the config's
   * shutdownTimeoutMs the rest are cut off (forceShutdown). Safe to call twice.
   */
  shutdown(): Promise<void>;
  /** The idle auto-stop while it runs (tests drive its checks and read its store). */
  idle?: { stopper: IdleStopper; tracking: IdleTracking };
  /** What /metrics serves (tests read its counters without a metrics listener). */
  metrics: AgentMetrics;
}

export interface AgentServerOptions {
  config: AgentConfig;
  logger: Logger;
  /** Clock of the idle auto-stop; tests inject one. */
  now?: () => Date;
}

/** Mutual TLS: the agent's certificate, and client certificates required, chained to the link's CA. Also the certificate served. */
async function serverCredentials(tls: AgentConfig['tls']): Promise<{ credentials: grpc.ServerCredentials; servedCertificatePem: Buffer }> {
  const [ca, cert, key] = await Promise.all([readFile(tls.caPath), readFile(tls.certPath), readFile(tls.keyPath)]);
  return { credentials: grpc.ServerCredentials.createSsl(ca, [{ private_key: key, cert_chain: cert }], true), servedCertificatePem: cert };
}

function bind(server: grpc.Server, address: string, credentials: grpc.ServerCredentials): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(address, credentials, (error, port) => (error ? reject(error) : resolve(port)));
  });
}

/**
 * Builds the gRPC server with every contract service and starts listening. Interceptors, inner
 * to outer: logging (sees and logs every call, refused ones too), metrics (counts them all too),
 * client identity, contract version; a call reaches a service only when both checks pass. With
 * AGENT_METRICS_LISTEN set it also serves /healthz and /metrics over plain HTTP there.
 */
export async function startAgentServer({ config, logger, now = () => new Date() }: AgentServerOptions): Promise<RunningAgentServer> {
  const { credentials, servedCertificatePem } = await serverCredentials(config.tls);
  let shuttingDown = false;
  const metrics = createAgentMetrics();
  registerAgentGauges(metrics.registry, { dataDir: config.dataDir, servedCertificatePem });
  // Sent by the screenshot browser with every request: its visits are not a visitor's.
  const visitToken = randomBytes(16).toString('hex');
  const idleStop = config.idleStop;
  const tracking = idleStop ? await startIdleTracking({ config: { ...config, idleStop }, logger, metrics, visitToken, now }) : undefined;
  const probe = () =>
    probeCapabilities({
      dockerSocket: config.dockerSocket,
      caddyAdminUrl: config.caddyAdminUrl,
      mysqlUrl: config.mysqlUrl,
      chromiumPath: config.chromiumPath,
      wgBinary: config.wgBinary,
      timeoutMs: config.probeTimeoutMs,
    });
  const server = new grpc.Server({
    interceptors: [loggingInterceptor(logger), metricsInterceptor(metrics), clientIdentityInterceptor(config.allowedClients), contractVersionInterceptor()],
  });
  // The one client of the Docker engine, handed to everyone who needs it (engine.ts).
  const docker = DockerEngine.atSocket(config.dockerSocket);
  // One Caddy driver for everyone who changes routes: its changes go through one queue.
  const proxy = createCaddyProxyDriver(config, tracking?.accessLogAddress);
  const managedContainers = engineManagedContainers(docker, config.containers);
  const idleStopper =
    idleStop && tracking
      ? new IdleStopper({
          containers: managedContainers,
          activity: tracking.activity,
          ensureObserving: () => proxy.ensureServer(),
          afterMs: idleStop.afterMs,
          cron: idleStop.cron,
          logger,
          now,
          onStopped: () => metrics.countIdleStop(),
        })
      : undefined;
  const routeKeeper = new RouteKeeper({
    containers: managedContainers,
    proxy,
    logger,
    cron: config.reconcileCron,
    stuckCreatedMs: config.halfMadeAfterMs,
    siteDomain: config.siteDomain,
    onEvent: idleStopper ? (event) => idleStopper.noteEvent(event) : undefined,
  });

  const startedAt = new Date();
  new InfoServiceImpl({
    agentVersion: AGENT_VERSION,
    contractVersion: CONTRACT_VERSION,
    hostname: os.hostname(),
    startedAt,
    probeCapabilities: probe,
    isShuttingDown: () => shuttingDown,
    logger,
  }).addToServer(server);
  new HostStatsServiceImpl({
    agentVersion: AGENT_VERSION,
    contractVersion: CONTRACT_VERSION,
    hostname: os.hostname(),
    startedAt,
    docker,
    caddyAdminUrl: config.caddyAdminUrl,
    mysqlUrl: config.mysqlUrl,
    chromiumPath: config.chromiumPath,
    browserServer: config.browser.server,
    wireguardInterface: config.vpn.interfaceName,
    dataDir: config.dataDir,
    certPath: config.tls.certPath,
    probeTimeoutMs: config.probeTimeoutMs,
    logger,
  }).addToServer(server);
  // One writer for both services: writes into one container stay in order.
  const sshKeys = new ContainerSshKeys({ docker, dataDir: config.dataDir, logger });
  const dockerDriver = new EngineDockerDriver(
    docker,
    {
      network: config.containers.network,
      httpPort: config.containers.httpPort,
      publishAddress: config.containers.publishAddress,
      sshBindAddress: config.ssh.bindAddress,
      diskLimitBytes: config.containers.diskLimitBytes,
    },
    {
      firewall: new IptablesContainerFirewall({
        mode: config.containers.firewall,
        iptablesBinary: config.vpn.iptablesBinary,
        allowedTcpPorts: config.containers.allowedHostPorts,
      }),
      logger,
      onContainersMoved: () => void routeKeeper.reconcile(),
    },
  );
  // Isolation is set up now, not at the first create: after a reboot or an upgrade the running
  // containers are protected as soon as the agent runs (the iptables rules do not survive a reboot).
  // Before the agent serves: a network migration moves containers between networks, which must not
  // overlap its first calls. A hung engine does not hold the start up (retried at the first create).
  await settleWithin(dockerDriver.checkAtStart(), START_CHECK_TIMEOUT_MS);
  // Git deploys (contract 1.7.0): a project's repository into its container.
  // The one owner of each project's turn: creates, state changes, removals, key writes and deploys.
  const turns = new ProjectTurns();
  const deployService = new DeployServiceImpl({ containers: dockerDriver, docker, config, logger, turns });
  deployService.addToServer(server);
  const containerService = new ContainerServiceImpl({
    docker: dockerDriver,
    proxy,
    sshKeys,
    config,
    logger,
    autoStopOf: idleStopper ? (id) => idleStopper.autoStopOf(id) : undefined,
    afterProjectRemoved: (projectId) => deployService.removeCheckout(projectId),
    turns,
  });
  containerService.addToServer(server);
  // One Docker stats stream per watched container, shared by every caller (contract 1.6.0).
  const statsHub = new StatsHub({ source: engineStatsSource(docker, { intervalMs: config.statsIntervalMs }), logger });
  // Every running managed container at once for the teachers' top lists: one sweep per 15 s however many ask.
  const statsSweeper = new StatsSweeper({
    source: engineSweepSource(docker, { network: config.containers.network, managedLabel: `${LABELS.managed}=true`, projectIdLabel: LABELS.projectId }),
    logger,
    watchedSample: (containerId) => statsHub.latest(containerId),
  });
  const statsService = new ContainerStatsServiceImpl({ docker: dockerDriver, hub: statsHub, sweeper: statsSweeper, logger });
  statsService.addToServer(server);
  new ProxyServiceImpl({
    proxy,
    logger,
    siteDomain: config.siteDomain,
    ownUpstreams: async () => new Set((await managedContainers.list()).flatMap((container) => (container.upstream ? [container.upstream] : []))),
  }).addToServer(server);
  new SshAccessServiceImpl({ containers: dockerDriver, keys: sshKeys, sessions: new ContainerSshSessions(dockerDriver), config, logger, turns }).addToServer(server);
  const databaseService = new DatabaseServiceImpl({ config, logger });
  databaseService.addToServer(server);
  const screenshotService = new ScreenshotServiceImpl({ config, logger, visitToken });
  screenshotService.addToServer(server);
  const vpnService = new VpnServiceImpl({ config, logger });
  vpnService.addToServer(server);

  const port = await bind(server, config.listen, credentials);
  // A host whose VPN was in use gets its interface and peers back now, not on the first call.
  void vpnService.start();
  void databaseService.start();
  try {
    routeKeeper.start();
    idleStopper?.start();
  } catch (error) {
    server.forceShutdown();
    await routeKeeper.stop().catch(() => undefined);
    await tracking?.close();
    throw error;
  }

  // /healthz and /metrics for operators (AGENT_METRICS_LISTEN). A taken port is logged, not
  // fatal: the agent's real work is the gRPC service.
  let metricsServer: RunningAgentMetricsServer | undefined;
  if (config.metricsListen) {
    try {
      metricsServer = await startAgentMetricsServer({
        listen: config.metricsListen,
        metrics,
        probe,
        probeTimeoutMs: config.probeTimeoutMs + 1_000,
        isShuttingDown: () => shuttingDown,
        agentVersion: AGENT_VERSION,
        logger,
      });
      logger.info({ listen: config.metricsListen, port: metricsServer.port }, 'metrics listening');
    } catch (error) {
      logger.error({ err: error, listen: config.metricsListen }, 'metrics listener could not start');
    }
  }

  let stopped: Promise<void> | undefined;
  const shutdown = (): Promise<void> => {
    stopped ??= Promise.all([
      routeKeeper.stop().catch((error: unknown) => logger.warn({ err: error }, 'route keeper did not stop cleanly')),
      idleStopper?.stop().catch((error: unknown) => logger.warn({ err: error }, 'idle auto-stop did not stop cleanly (activity not saved)')),
      new Promise<void>((resolve) => {
        shuttingDown = true;
        // Long-lived streams end now (clients reconnect); unary calls in flight may finish.
        containerService.endStreams();
        statsService.endStreams();
        const force = setTimeout(() => {
          logger.warn({ timeoutMs: config.shutdownTimeoutMs }, 'calls still running after the shutdown timeout; cutting them off');
          server.forceShutdown();
          resolve();
        }, config.shutdownTimeoutMs);
        server.tryShutdown((error) => {
          if (error) logger.warn({ err: error }, 'graceful shutdown failed');
          clearTimeout(force);
          resolve();
        });
      }),
    ])
      .then(() => Promise.all([databaseService.close(), screenshotService.close(), deployService.close(), metricsServer?.close(), tracking?.close()]))
      .then(() => undefined);
    return stopped;
  };

  return { port, shutdown, metrics, ...(idleStopper && tracking ? { idle: { stopper: idleStopper, tracking } } : {}) };
}
