import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { type GetInfoResponse, InfoServiceClient } from '@devplein/proto/info';
import {
  type ChangeContainerStateResponse,
  ContainerServiceClient,
  type CreateContainerResponse,
  type ExecWordpressPasswordResetResponse,
  type FollowContainerLogsResponse,
  type GetContainerLogsResponse,
  type ListContainersResponse,
  type PullImageResponse,
  type RemoveContainerResponse,
  type WatchContainerEventsResponse,
} from '@devplein/proto/container';
import { type ListRoutesResponse, ProxyServiceClient, type RemoveRouteResponse, type UpsertRouteResponse } from '@devplein/proto/proxy';
import { type EndSshSessionsResponse, type GetSshAccessResponse, type SetAuthorizedKeysResponse, SshAccessServiceClient } from '@devplein/proto/ssh_access';
import {
  type CreateDatabaseResponse,
  DatabaseServiceClient,
  type DropDatabaseResponse,
  type ListDatabasesResponse,
  type LockAccountsResponse,
  type UnlockAccountsResponse,
} from '@devplein/proto/database';
import {
  type CreatePeerResponse,
  type GetServerInfoResponse,
  type ListPeersResponse,
  type RemovePeerResponse,
  VpnServiceClient,
} from '@devplein/proto/vpn';
import { type CaptureResponse, ScreenshotServiceClient } from '@devplein/proto/screenshot';
import { CONTRACT_VERSION, CONTRACT_VERSION_METADATA_KEY } from '@devplein/proto/version';
import { toAgentError } from './agent-error.ts';
import {
  containerActionCode,
  containerEventView,
  containerRef,
  containerView,
  logLineView,
  pullProgressView,
  routeView,
  sshAccessView,
} from './container-views.ts';
import { streamCall, type StreamCallOptions } from './grpc-stream.ts';
import type { AgentCallOptions, ContainerApi, DatabaseApi, ProxyApi, ScreenshotApi, SshApi, VpnApi } from './host-apis.ts';
import { accountLockView, databaseView } from './database-views.ts';
import { peerView, vpnServerView } from './vpn-views.ts';
import { captureView } from './screenshot-views.ts';
import type { BackoffPolicy } from './backoff.ts';
import { controlPlaneMetrics, type ControlPlaneMetrics } from '../metrics/metrics.ts';
import {
  type AgentInfoView,
  type AgentStatus,
  AgentHealthMonitor,
  type CapabilityView,
  type MonitorClock,
} from './health-monitor.ts';

export { AgentError, type AgentErrorCode } from './agent-error.ts';
export type { AgentInfoView, AgentStatus, CapabilityView } from './health-monitor.ts';
export type { AgentCallOptions, ContainerApi, DatabaseApi, ProxyApi, ScreenshotApi, SshApi, VpnApi } from './host-apis.ts';

/** Metadata key of the request id that follows a request across the gRPC hop. */
export const REQUEST_ID_METADATA_KEY = 'x-request-id';

export interface AgentClientOptions {
  /** host:port of the agent; use a name in its certificate's SAN, e.g. `localhost:7443`. */
  address: string;
  /** The name to check the agent's certificate against, when the address does not carry it. */
  serverName?: string;
  /** The dev server's name (metrics label; default 'dev1'). */
  host?: string;
  caPem: Buffer;
  certPem: Buffer;
  keyPem: Buffer;
  /** Deadline of every call (default 5000 ms). */
  deadlineMs?: number;
  /** Deadline of CreateContainer (default 120 s: it may pull the image first). */
  createDeadlineMs?: number;
  /** Deadline of a whole PullImage stream (default 15 min). */
  pullDeadlineMs?: number;
  logger: Logger;
  /** Pause between health checks while the agent answers (default 5000 ms). */
  monitorIntervalMs?: number;
  /** Pause between health checks while it does not (default 500 ms doubling up to 10 s). */
  backoff?: Partial<BackoffPolicy>;
  /** For tests: a fake clock for the health monitor. */
  clock?: MonitorClock;
  /** Where calls are counted and timed (default: the process's metrics). */
  metrics?: Pick<ControlPlaneMetrics, 'observeAgentCall' | 'streamOpened' | 'streamMessage' | 'streamEnded'>;
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
  /** Starts the health monitor (idempotent). */
  start(): void;
  /** Stops the monitor and closes the connection. */
  close(): void;
}

type UnaryInvoker<Response> = (
  metadata: grpc.Metadata,
  options: Partial<grpc.CallOptions>,
  callback: (error: grpc.ServiceError | null, response: Response) => void,
) => grpc.ClientUnaryCall;

/** The agent's page time limit when a Capture asks for none (screenshot.proto). */
const CAPTURE_DEFAULT_TIMEOUT_MS = 15_000;
/** Capture's deadline beyond the page's time limit: browser (re)start, rendering, PNG encoding. */
const CAPTURE_DEADLINE_SLACK_MS = 15_000;

/** The link's backoff: health checks, the channel's reconnects and the event relay all use it. */
export const defaultBackoff: BackoffPolicy = { initialMs: 500, maxMs: 10_000, factor: 2, jitter: 0.2 };

const missingCapability: CapabilityView = { available: false, detail: 'not reported by the agent' };

/** The agent's GetInfo answer as plain JSON (no proto message leaves this module). */
export function presentAgentInfo(response: GetInfoResponse): AgentInfoView {
  const capability = (value: CapabilityView | undefined): CapabilityView =>
    value ? { available: value.available, detail: value.detail } : { ...missingCapability };
  const capabilities = response.capabilities;
  return {
    agentVersion: response.agentVersion,
    contractVersion: response.contractVersion,
    hostname: response.hostname,
    capabilities: {
      docker: capability(capabilities?.docker),
      proxy: capability(capabilities?.proxy),
      mysql: capability(capabilities?.mysql),
      chromium: capability(capabilities?.chromium),
      wireguard: capability(capabilities?.wireguard),
    },
  };
}

/** Drops the nulls a stream maps empty messages to. */
async function* withoutNulls<View>(source: AsyncIterable<View | null>): AsyncGenerator<View, void, undefined> {
  for await (const item of source) if (item !== null) yield item;
}

/** Metadata every call carries: the contract version (checked by the agent) and a request id. */
export function callMetadata(requestId: string = randomUUID()): grpc.Metadata {
  const metadata = new grpc.Metadata();
  metadata.set(CONTRACT_VERSION_METADATA_KEY, CONTRACT_VERSION);
  metadata.set(REQUEST_ID_METADATA_KEY, requestId);
  return metadata;
}

/**
 * Connects to a host agent over gRPC with mutual TLS. Every call has a deadline and sends the
 * contract version and a request id; failures become AgentError. The channel reconnects by
 * itself (its reconnect backoff is capped like the monitor's), so an agent that comes back is
 * used again without a new client.
 */
export function createAgentClient(options: AgentClientOptions): AgentClient {
  const deadlineMs = options.deadlineMs ?? 5_000;
  const backoff: BackoffPolicy = { ...defaultBackoff, ...options.backoff };
  const logger = options.logger.child({ agentAddress: options.address });
  const credentials = grpc.credentials.createSsl(options.caPem, options.keyPem, options.certPem);
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
  // Creating or dropping a database and its account, or a peer, takes a few statements/commands.
  const hostChangeDeadlineMs = Math.max(deadlineMs, 30_000);
  const createDeadlineMs = options.createDeadlineMs ?? 120_000;
  const pullDeadlineMs = options.pullDeadlineMs ?? 15 * 60_000;
  const host = options.host ?? 'dev1';
  const hostMetrics = options.metrics ?? controlPlaneMetrics;
  const metrics = {
    observeAgentCall: (rpc: string, outcome: string, seconds: number) => hostMetrics.observeAgentCall(host, rpc, outcome, seconds),
    streamOpened: (rpc: string) => hostMetrics.streamOpened(host, rpc),
    streamMessage: (rpc: string) => hostMetrics.streamMessage(host, rpc),
    streamEnded: (rpc: string, outcome: string) => hostMetrics.streamEnded(host, rpc, outcome),
  };

  function unary<Response>(rpc: string, invoke: UnaryInvoker<Response>, callOptions: AgentCallOptions = {}): Promise<Response> {
    const requestId = callOptions.requestId ?? randomUUID();
    const deadline = new Date(Date.now() + (callOptions.deadlineMs ?? deadlineMs));
    const startedAt = performance.now();
    return new Promise((resolve, reject) => {
      invoke(callMetadata(requestId), { deadline }, (error, response) => {
        const seconds = (performance.now() - startedAt) / 1000;
        if (error) {
          const agentError = toAgentError(error, rpc);
          logger.debug({ rpc, requestId, code: agentError.code, details: agentError.details }, 'agent call failed');
          metrics.observeAgentCall(rpc, agentError.code, seconds);
          reject(agentError);
        } else {
          metrics.observeAgentCall(rpc, 'ok', seconds);
          resolve(response);
        }
      });
    });
  }

  const getInfo = async (callOptions?: AgentCallOptions): Promise<AgentInfoView> =>
    presentAgentInfo(await unary<GetInfoResponse>('GetInfo', (md, opts, cb) => infoClient.getInfo({}, md, opts, cb), callOptions));

  const stream = <Message, View>(
    rpc: string,
    open: (md: grpc.Metadata, opts: Partial<grpc.CallOptions>) => grpc.ClientReadableStream<Message>,
    map: (message: Message) => View,
    streamOptions: StreamCallOptions = {},
  ): AsyncIterable<View> => streamCall(rpc, open, map, callMetadata(streamOptions.requestId), streamOptions, logger, metrics);

  const containers: ContainerApi = {
    async create(input, callOptions) {
      const request = {
        projectId: input.projectId,
        name: input.name,
        domain: input.domain,
        image: input.image,
        ownerUserId: input.ownerUserId,
        memberUserIds: [...input.memberUserIds],
        ssh: input.ssh,
        wordpress: input.wordpress,
        limits: { memoryBytes: input.limits?.memoryBytes ?? 0, nanoCpus: input.limits?.nanoCpus ?? 0, pids: input.limits?.pids ?? 0 },
        capabilities: { add: [...input.capabilities] },
      };
      const response = await unary<CreateContainerResponse>(
        'CreateContainer',
        (md, opts, cb) => containerClient.createContainer(request, md, opts, cb),
        { deadlineMs: createDeadlineMs, ...callOptions },
      );
      return { container: response.container ? containerView(response.container) : null, created: response.created };
    },
    async changeState(target, action, callOptions) {
      const request = { container: containerRef(target), action: containerActionCode(action) };
      const response = await unary<ChangeContainerStateResponse>(
        'ChangeContainerState',
        (md, opts, cb) => containerClient.changeContainerState(request, md, opts, cb),
        { deadlineMs: Math.max(deadlineMs, 30_000), ...callOptions },
      );
      return response.container ? containerView(response.container) : null;
    },
    async remove(target, callOptions) {
      const response = await unary<RemoveContainerResponse>(
        'RemoveContainer',
        (md, opts, cb) => containerClient.removeContainer({ container: containerRef(target) }, md, opts, cb),
        { deadlineMs: Math.max(deadlineMs, 30_000), ...callOptions },
      );
      return { removed: response.removed };
    },
    async list(filter, callOptions) {
      const request = { projectIds: [...(filter.projectIds ?? [])], includeUnmanaged: filter.includeUnmanaged ?? false };
      const response = await unary<ListContainersResponse>(
        'ListContainers',
        (md, opts, cb) => containerClient.listContainers(request, md, opts, cb),
        callOptions,
      );
      return response.containers.map(containerView);
    },
    async logs(target, tail, callOptions) {
      const response = await unary<GetContainerLogsResponse>(
        'GetContainerLogs',
        (md, opts, cb) => containerClient.getContainerLogs({ container: containerRef(target), tail }, md, opts, cb),
        callOptions,
      );
      return response.lines.map(logLineView);
    },
    followLogs: (target, tail, streamOptions) =>
      withoutNulls(
        stream<FollowContainerLogsResponse, ReturnType<typeof logLineView> | null>(
          'FollowContainerLogs',
          (md, opts) => containerClient.followContainerLogs({ container: containerRef(target), tail }, md, opts),
          (message) => (message.line ? logLineView(message.line) : null),
          streamOptions,
        ),
      ),
    pullImage: (image, projectId, streamOptions) =>
      stream<PullImageResponse, ReturnType<typeof pullProgressView>>(
        'PullImage',
        (md, opts) => containerClient.pullImage({ image, projectId }, md, opts),
        pullProgressView,
        { deadlineMs: pullDeadlineMs, ...streamOptions },
      ),
    watchEvents: (filter, streamOptions) =>
      withoutNulls(
        stream<WatchContainerEventsResponse, ReturnType<typeof containerEventView> | null>(
          'WatchContainerEvents',
          (md, opts) =>
            containerClient.watchContainerEvents(
              { projectIds: [...(filter.projectIds ?? [])], includeUnmanaged: filter.includeUnmanaged ?? false, since: filter.since },
              md,
              opts,
            ),
          (message) => (message.event ? containerEventView(message.event) : null),
          streamOptions,
        ),
      ),
    async wordpressPasswordReset(target, username, callOptions) {
      const response = await unary<ExecWordpressPasswordResetResponse>(
        'ExecWordpressPasswordReset',
        (md, opts, cb) => containerClient.execWordpressPasswordReset({ container: containerRef(target), username: username ?? '' }, md, opts, cb),
        { deadlineMs: Math.max(deadlineMs, 30_000), ...callOptions },
      );
      return { username: response.username, password: response.password };
    },
  };

  const proxy: ProxyApi = {
    async upsertRoute(route, callOptions) {
      const response = await unary<UpsertRouteResponse>(
        'UpsertRoute',
        (md, opts, cb) => proxyClient.upsertRoute({ route: { ...route } }, md, opts, cb),
        callOptions,
      );
      return { route: routeView(response.route), created: response.created };
    },
    async removeRoute(domain, callOptions) {
      const response = await unary<RemoveRouteResponse>('RemoveRoute', (md, opts, cb) => proxyClient.removeRoute({ domain }, md, opts, cb), callOptions);
      return { removed: response.removed };
    },
    async listRoutes(callOptions) {
      const response = await unary<ListRoutesResponse>('ListRoutes', (md, opts, cb) => proxyClient.listRoutes({}, md, opts, cb), callOptions);
      return response.routes.map((route) => routeView(route));
    },
  };

  const ssh: SshApi = {
    async setAuthorizedKeys(projectId, keys, callOptions) {
      const request = { projectId, keys: keys.map((key) => ({ publicKey: key.publicKey, userId: key.userId })) };
      const response = await unary<SetAuthorizedKeysResponse>(
        'SetAuthorizedKeys',
        (md, opts, cb) => sshClient.setAuthorizedKeys(request, md, opts, cb),
        callOptions,
      );
      return sshAccessView(response.access);
    },
    async getAccess(projectId, callOptions) {
      const response = await unary<GetSshAccessResponse>('GetSshAccess', (md, opts, cb) => sshClient.getSshAccess({ projectId }, md, opts, cb), callOptions);
      return sshAccessView(response.access);
    },
    async endSessions(projectId, userIds, callOptions) {
      const response = await unary<EndSshSessionsResponse>(
        'EndSshSessions',
        (md, opts, cb) => sshClient.endSshSessions({ projectId, userIds: [...userIds] }, md, opts, cb),
        { deadlineMs: hostChangeDeadlineMs, ...callOptions },
      );
      return {
        containerRunning: response.containerRunning,
        ended: response.endedSessions,
        endedUnattributed: response.endedUnattributedSessions,
        kept: response.keptSessions,
      };
    },
  };

  const databases: DatabaseApi = {
    async create(input, callOptions) {
      const request = { name: input.name, user: input.user, ownerUserId: input.ownerUserId };
      const response = await unary<CreateDatabaseResponse>(
        'CreateDatabase',
        (md, opts, cb) => databaseClient.createDatabase(request, md, opts, cb),
        { deadlineMs: hostChangeDeadlineMs, ...callOptions },
      );
      return { database: databaseView(response.database, { name: input.name, user: input.user }), password: response.password };
    },
    async drop(target, callOptions) {
      const response = await unary<DropDatabaseResponse>(
        'DropDatabase',
        (md, opts, cb) => databaseClient.dropDatabase({ name: target.name, user: target.user }, md, opts, cb),
        { deadlineMs: hostChangeDeadlineMs, ...callOptions },
      );
      return { databaseDropped: response.databaseDropped, userDropped: response.userDropped };
    },
    async list(namePrefix, callOptions) {
      const response = await unary<ListDatabasesResponse>(
        'ListDatabases',
        (md, opts, cb) => databaseClient.listDatabases({ namePrefix: namePrefix ?? '' }, md, opts, cb),
        callOptions,
      );
      return response.databases.map((database) => databaseView(database, { name: '', user: '' }));
    },
    async lockAccounts(users, callOptions) {
      const response = await unary<LockAccountsResponse>(
        'LockAccounts',
        (md, opts, cb) => databaseClient.lockAccounts({ users: [...users] }, md, opts, cb),
        { deadlineMs: hostChangeDeadlineMs, ...callOptions },
      );
      return response.accounts.map(accountLockView);
    },
    async unlockAccounts(users, callOptions) {
      const response = await unary<UnlockAccountsResponse>(
        'UnlockAccounts',
        (md, opts, cb) => databaseClient.unlockAccounts({ users: [...users] }, md, opts, cb),
        { deadlineMs: hostChangeDeadlineMs, ...callOptions },
      );
      return response.accounts.map(accountLockView);
    },
  };

  const vpn: VpnApi = {
    async createPeer(input, callOptions) {
      const request = { publicKey: input.publicKey, address: input.address ?? '', identifier: input.identifier, userId: input.userId };
      const response = await unary<CreatePeerResponse>(
        'CreatePeer',
        (md, opts, cb) => vpnClient.createPeer(request, md, opts, cb),
        { deadlineMs: hostChangeDeadlineMs, ...callOptions },
      );
      return { peer: response.peer ? peerView(response.peer) : null, created: response.created };
    },
    async removePeer(publicKey, callOptions) {
      const response = await unary<RemovePeerResponse>(
        'RemovePeer',
        (md, opts, cb) => vpnClient.removePeer({ publicKey }, md, opts, cb),
        { deadlineMs: hostChangeDeadlineMs, ...callOptions },
      );
      return { removed: response.removed };
    },
    async listPeers(callOptions) {
      const response = await unary<ListPeersResponse>('ListPeers', (md, opts, cb) => vpnClient.listPeers({}, md, opts, cb), callOptions);
      return response.peers.map(peerView);
    },
    async serverInfo(callOptions) {
      const response = await unary<GetServerInfoResponse>('GetServerInfo', (md, opts, cb) => vpnClient.getServerInfo({}, md, opts, cb), callOptions);
      return vpnServerView(response);
    },
  };

  const screenshots: ScreenshotApi = {
    async capture(input, callOptions) {
      const timeoutMs = input.timeoutMs ?? 0;
      const request = {
        domain: input.domain,
        viewportWidth: input.viewportWidth ?? 0,
        viewportHeight: input.viewportHeight ?? 0,
        thumbnailWidth: input.thumbnailWidth ?? 0,
        timeoutMs,
      };
      // The page's own time limit (the agent's default is 15 s) plus slack for a browser
      // (re)start and encoding the PNGs: the agent answers TIMEOUT itself well before this.
      const captureDeadlineMs = (timeoutMs > 0 ? timeoutMs : CAPTURE_DEFAULT_TIMEOUT_MS) + CAPTURE_DEADLINE_SLACK_MS;
      const response = await unary<CaptureResponse>(
        'Capture',
        (md, opts, cb) => screenshotClient.capture(request, md, opts, cb),
        { deadlineMs: Math.max(deadlineMs, captureDeadlineMs), ...callOptions },
      );
      return captureView(response);
    },
  };

  const monitor = new AgentHealthMonitor({
    probe: () => getInfo(),
    intervalMs: options.monitorIntervalMs ?? 5_000,
    backoff,
    logger,
    ...(options.clock ? { clock: options.clock } : {}),
  });

  return {
    async info(callOptions) {
      try {
        const info = await getInfo(callOptions);
        monitor.recordSuccess(info);
        return info;
      } catch (error) {
        monitor.recordFailure(error);
        throw error;
      }
    },
    status: () => monitor.status(),
    containers,
    proxy,
    ssh,
    databases,
    vpn,
    screenshots,
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
    },
  };
}
