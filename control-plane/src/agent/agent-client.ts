import * as grpc from '@grpc/grpc-js';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import type { Logger } from 'pino';
import { InfoServiceClient } from '@devplein/proto/info';
import { ContainerServiceClient } from '@devplein/proto/container';
import { ProxyServiceClient } from '@devplein/proto/proxy';
import { SshAccessServiceClient } from '@devplein/proto/ssh_access';
import { DatabaseServiceClient } from '@devplein/proto/database';
import { VpnServiceClient } from '@devplein/proto/vpn';
import { ScreenshotServiceClient } from '@devplein/proto/screenshot';
import { HostStatsServiceClient } from '@devplein/proto/host_stats';
import { ContainerStatsServiceClient } from '@devplein/proto/container_stats';
import { DeployServiceClient } from '@devplein/proto/deploy';
import { streamCaller } from './grpc-stream.ts';
import { type AgentDeadlines, unaryCaller } from './grpc-unary.ts';
import type { AgentCallOptions } from './call-options.ts';
import type { ContainerApi } from './clients/container.ts';
import type { DatabaseApi } from './clients/database.ts';
import type { DeployApi } from './clients/deploy.ts';
import type { ProxyApi } from './clients/proxy.ts';
import type { ScreenshotApi } from './clients/screenshot.ts';
import type { SshApi } from './clients/ssh-access.ts';
import type { VpnApi } from './clients/vpn.ts';
import { createDeployClient } from './clients/deploy.ts';
import { createContainerClient } from './clients/container.ts';
import { createDatabaseClient } from './clients/database.ts';
import { createInfoClient } from './clients/info.ts';
import { createHostStatsClient, type HostStatsApi } from './clients/host-stats.ts';
import { type ContainerStatsApi, createContainerStatsClient } from './clients/container-stats.ts';
import { createProxyClient } from './clients/proxy.ts';
import { createScreenshotClient } from './clients/screenshot.ts';
import { createSshAccessClient } from './clients/ssh-access.ts';
import { createVpnClient } from './clients/vpn.ts';
import type { BackoffPolicy } from './backoff.ts';
import { type AgentInfoView, type AgentStatus, AgentHealthMonitor, type MonitorClock } from './health-monitor.ts';

export { AgentError, type AgentErrorCode } from './agent-error.ts';
export type { AgentInfoView, AgentStatus, CapabilityView } from './health-monitor.ts';
export type { HostStatsApi, HostStatsView } from './clients/host-stats.ts';
export type { ContainerStatsApi, ContainerStatsView } from './clients/container-stats.ts';
export type { AgentCallOptions } from './call-options.ts';
export type { ContainerApi } from './clients/container.ts';
export type { DatabaseApi } from './clients/database.ts';
export type { DeployApi } from './clients/deploy.ts';
export type { ProxyApi } from './clients/proxy.ts';
export type { ScreenshotApi } from './clients/screenshot.ts';
export type { SshApi } from './clients/ssh-access.ts';
export type { VpnApi } from './clients/vpn.ts';

/** Where a client counts and times its calls, per dev server (metrics/metrics.ts's ControlPlaneMetrics is one). */
export interface AgentCallMetrics {
  /** One unary call to the agent of dev server `host` ended: its RPC name, 'ok' or the AgentError code, and its duration. */
  observeAgentCall(host: string, method: string, outcome: string, seconds: number): void;
  /** A server-streaming call to `host`'s agent opened. */
  streamOpened(host: string, method: string): void;
  /** A message arrived on one. */
  streamMessage(host: string, method: string): void;
  /** One ended: ok, cancelled or the error code. */
  streamEnded(host: string, method: string, outcome: string): void;
}

export interface AgentClientOptions {
  /** host:port of the agent; use a name in its certificate's SAN, e.g. `localhost:7443`. */
  address: string;
  /** The name to check the agent's certificate against, when the address does not carry it. */
  serverName?: string;
  /** The dev server's name (metrics label; default 'dev1'). */
  host?: string;
  caPem: Buffer;
  /**
   * sha256 of the agent's certificate (lowercase hex) the link pinned when the dev server joined:
   * a certificate with another fingerprint is refused even when the CA signed it (a revoked or
   * replaced one). Unset: CA validation and the host name only (links from the configuration).
   */
  pinnedFingerprint?: string | null;
  /** The fingerprint renewed from, still accepted beside the pin until the agent switched (migration 0015). */
  previousFingerprint?: string | null;
  /**
   * Called at each handshake that presents the pinned certificate while a previous one is still
   * accepted: the agent switched, so the previous one may neither connect nor renew any more
   * (main.ts clears it: agent-link-store.ts recordPinnedCertificateSeen).
   */
  onPinnedSeen?: () => void;
  certPem: Buffer;
  keyPem: Buffer;
  /** Deadline of every call (default 5000 ms). */
  deadlineMs?: number;
  /** Deadline of CreateContainer (default 120 s: it may pull the image first). */
  createDeadlineMs?: number;
  /** Deadline of a whole PullImage stream (default 15 min). */
  pullDeadlineMs?: number;
  /** Deadline of a whole DeployRepository stream (default 30 min: the agent has its own fetch, build and command limits). */
  deployDeadlineMs?: number;
  logger: Logger;
  /** Pause between health checks while the agent answers (default 5000 ms). */
  monitorIntervalMs?: number;
  /** Pause between health checks while it does not (default 500 ms doubling up to 10 s). */
  backoff?: Partial<BackoffPolicy>;
  /** For tests: a fake clock for the health monitor. */
  clock?: MonitorClock;
  /** Where calls are counted and timed (the app's metrics, made in main.ts); absent: not counted. */
  metrics?: AgentCallMetrics;
}

/** The control plane's side of the agent link (one per agent). */
export interface AgentClient {
  /** InfoService.GetInfo; rejects with AgentError. Also updates status(). */
  info(options?: AgentCallOptions): Promise<AgentInfoView>;
  /** Link state as last seen by the health monitor or a call. */
  status(): AgentStatus;
  /** ContainerService (containers, logs, pulls, events, WordPress). */
  containers: ContainerApi;
  /** ProxyService (routes). */
  proxy: ProxyApi;
  /** SshAccessService (authorized keys, login address). */
  ssh: SshApi;
  /** DatabaseService (students' MySQL/MariaDB databases and accounts). */
  databases: DatabaseApi;
  /** VpnService (WireGuard peers and the server's side of a client configuration). */
  vpn: VpnApi;
  /** ScreenshotService (captures of project sites through the reverse proxy). */
  screenshots: ScreenshotApi;
  /** HostStatsService (the host's health, disks, containers, certificate and load; contract 1.5.0). */
  hostStats: HostStatsApi;
  /** ContainerStatsService (live CPU, memory, I/O of one container; contract 1.6.0). */
  containerStats: ContainerStatsApi;
  /** DeployService (git deploys and deploy keys; contract 1.7.0). */
  deploys: DeployApi;
  /** Starts the health monitor (idempotent). */
  start(): void;
  /** Stops the monitor and closes the connection. */
  close(): void;
}

/**
 * The fingerprint check of a pinned link, after the usual host name check. With a previous
 * fingerprint, `onPinnedSeen` hears of each handshake that presents the pinned one.
 */
export function pinningOptions(pinned: string | null | undefined, previous?: string | null, onPinnedSeen?: () => void): grpc.VerifyOptions {
  if (!pinned) return {};
  const expected = pinned.toLowerCase();
  // Right after a renewal the certificate renewed from stays accepted until the agent switched
  // (migration 0015): the first handshake with the pinned one ends that (onPinnedSeen), its own
  // end bounds it otherwise, TLS refuses it after that.
  const accepted = new Set([expected, ...(previous ? [previous.toLowerCase()] : [])]);
  return {
    checkServerIdentity(hostname: string, cert: PeerCertificate) {
      const mismatch = checkServerIdentity(hostname, cert);
      if (mismatch) return mismatch;
      const actual = cert.fingerprint256.replace(/:/g, '').toLowerCase();
      if (!accepted.has(actual)) return new Error(`agent certificate ${actual} is not the pinned ${expected} (revoked or replaced: invite the dev server again)`);
      if (previous && actual === expected) onPinnedSeen?.();
      return undefined;
    },
  };
}

/** The link's backoff: health checks, the channel's reconnects and the event relay all use it. */
export const defaultBackoff: BackoffPolicy = { initialMs: 500, maxMs: 10_000, factor: 2, jitter: 0.2 };

/**
 * Connects to a host agent over gRPC with mutual TLS. Every call has a deadline and sends the
 * contract version and a request id; failures become AgentError. The channel reconnects by
 * itself (its reconnect backoff is capped like the monitor's), so an agent that comes back is
 * used again without a new client. Each service's client is its own module (agent/*-client.ts);
 * this assembles them on one set of credentials.
 */
/** A client made without the app's metrics (a test, a command-line tool) counts nothing. */
const notCounted: NonNullable<AgentClientOptions['metrics']> = {
  observeAgentCall: () => undefined,
  streamOpened: () => undefined,
  streamMessage: () => undefined,
  streamEnded: () => undefined,
};

export function createAgentClient(options: AgentClientOptions): AgentClient {
  const deadlineMs = options.deadlineMs ?? 5_000;
  const backoff: BackoffPolicy = { ...defaultBackoff, ...options.backoff };
  const logger = options.logger.child({ agentAddress: options.address });
  const credentials = grpc.credentials.createSsl(options.caPem, options.keyPem, options.certPem, pinningOptions(options.pinnedFingerprint, options.previousFingerprint, options.onPinnedSeen));
  const channelOptions: grpc.ChannelOptions = {
    'grpc.initial_reconnect_backoff_ms': Math.min(backoff.initialMs, 1_000),
    'grpc.max_reconnect_backoff_ms': backoff.maxMs,
    ...(options.serverName ? { 'grpc.ssl_target_name_override': options.serverName, 'grpc.default_authority': options.serverName } : {}),
  };
  const infoClient = new InfoServiceClient(options.address, credentials, channelOptions);
  const containerClient = new ContainerServiceClient(options.address, credentials, channelOptions);
  const proxyClient = new ProxyServiceClient(options.address, credentials, channelOptions);
  const sshClient = new SshAccessServiceClient(options.address, credentials, channelOptions);
  const databaseClient = new DatabaseServiceClient(options.address, credentials, channelOptions);
  const vpnClient = new VpnServiceClient(options.address, credentials, channelOptions);
  const screenshotClient = new ScreenshotServiceClient(options.address, credentials, channelOptions);
  const hostStatsClient = new HostStatsServiceClient(options.address, credentials, channelOptions);
  const containerStatsClient = new ContainerStatsServiceClient(options.address, credentials, channelOptions);
  const deployClient = new DeployServiceClient(options.address, credentials, channelOptions);
  const deadlines: AgentDeadlines = {
    call: deadlineMs,
    // Creating or dropping a database and its account, or a peer, takes a few statements/commands.
    hostChange: Math.max(deadlineMs, 30_000),
    create: options.createDeadlineMs ?? 120_000,
    pull: options.pullDeadlineMs ?? 15 * 60_000,
    deploy: options.deployDeadlineMs ?? 30 * 60_000,
  };
  const host = options.host ?? 'dev1';
  const hostMetrics = options.metrics ?? notCounted;
  const metrics = {
    observeAgentCall: (rpc: string, outcome: string, seconds: number) => hostMetrics.observeAgentCall(host, rpc, outcome, seconds),
    streamOpened: (rpc: string) => hostMetrics.streamOpened(host, rpc),
    streamMessage: (rpc: string) => hostMetrics.streamMessage(host, rpc),
    streamEnded: (rpc: string, outcome: string) => hostMetrics.streamEnded(host, rpc, outcome),
  };
  const unary = unaryCaller({ logger, deadlineMs, metrics });
  const stream = streamCaller(logger, metrics);

  const info = createInfoClient(infoClient, unary);
  const monitor = new AgentHealthMonitor({
    probe: () => info.getInfo(),
    intervalMs: options.monitorIntervalMs ?? 5_000,
    backoff,
    logger,
    ...(options.clock ? { clock: options.clock } : {}),
  });

  return {
    async info(callOptions) {
      try {
        const answer = await info.getInfo(callOptions);
        monitor.recordSuccess(answer);
        return answer;
      } catch (error) {
        monitor.recordFailure(error);
        throw error;
      }
    },
    status: () => monitor.status(),
    containers: createContainerClient(containerClient, { unary, stream }, deadlines),
    proxy: createProxyClient(proxyClient, unary),
    ssh: createSshAccessClient(sshClient, unary, deadlines),
    databases: createDatabaseClient(databaseClient, unary, deadlines),
    vpn: createVpnClient(vpnClient, unary, deadlines),
    screenshots: createScreenshotClient(screenshotClient, unary, deadlines),
    hostStats: createHostStatsClient(hostStatsClient, unary),
    containerStats: createContainerStatsClient(containerStatsClient, { unary, stream }),
    deploys: createDeployClient(deployClient, { unary, stream }, deadlines),
    start: () => monitor.start(),
    close() {
      monitor.stop();
      infoClient.close();
      containerClient.close();
      proxyClient.close();
      sshClient.close();
      databaseClient.close();
      vpnClient.close();
      screenshotClient.close();
      hostStatsClient.close();
      containerStatsClient.close();
      deployClient.close();
    },
  };
}
