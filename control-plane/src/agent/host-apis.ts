import type { StreamCallOptions } from './grpc-stream.ts';
import type {
  ContainerActionName,
  ContainerEventView,
  ContainerTarget,
  ContainerView,
  CreateContainerInput,
  EndedSshSessionsView,
  LogLineView,
  PullProgressView,
  RouteView,
  SshAccessView,
} from './container-views.ts';
import type { AccountLockView, CreateDatabaseInput, CreatedDatabaseView, DatabaseView, DroppedDatabaseView } from './database-views.ts';
import type { CreatePeerInput, PeerView, VpnServerView } from './vpn-views.ts';
import type { CaptureInput, CaptureView } from './screenshot-views.ts';
import type { DeployInput, DeployStreamEvent } from './deploy-views.ts';

export type { StreamCallOptions } from './grpc-stream.ts';

/** Per-call options of unary calls. */
export interface AgentCallOptions {
  /** Request id sent as `x-request-id` (a new one when absent), so both logs show one id. */
  requestId?: string;
  deadlineMs?: number;
}

/**
 * ContainerService as the control plane uses it. Every method rejects with AgentError
 * (`unreachable` when the agent did not answer); streams are async iterables that end when
 * the agent ends them or when `signal` aborts.
 */
export interface ContainerApi {
  /** `authorizedKeysWritten`: the new SSH container got `input.authorizedKeys` before its start (contract 1.4.0; false from an older agent). */
  createContainer(input: CreateContainerInput, options?: AgentCallOptions): Promise<{ container: ContainerView | null; created: boolean; authorizedKeysWritten: boolean }>;
  changeContainerState(target: ContainerTarget, action: ContainerActionName, options?: AgentCallOptions): Promise<ContainerView | null>;
  removeContainer(target: ContainerTarget, options?: AgentCallOptions): Promise<{ removed: boolean }>;
  listContainers(filter: { projectIds?: number[]; includeUnmanaged?: boolean }, options?: AgentCallOptions): Promise<ContainerView[]>;
  getContainerLogs(target: ContainerTarget, tail: number, options?: AgentCallOptions): Promise<LogLineView[]>;
  followContainerLogs(target: ContainerTarget, tail: number, options?: StreamCallOptions): AsyncIterable<LogLineView>;
  pullImage(image: string, projectId: number, options?: StreamCallOptions): AsyncIterable<PullProgressView>;
  watchContainerEvents(filter: { projectIds?: number[]; includeUnmanaged?: boolean; since?: Date }, options?: StreamCallOptions): AsyncIterable<ContainerEventView>;
  execWordpressPasswordReset(target: ContainerTarget, username?: string, options?: AgentCallOptions): Promise<{ username: string; password: string }>;
}

/**
 * DeployService (contract 1.7.0): a git deploy as a stream of log lines ending with one
 * 'finished' event, and the project's deploy key (the private half stays on the dev server).
 * An agent before 1.7.0 answers UNIMPLEMENTED.
 */
export interface DeployApi {
  deployRepository(input: DeployInput, options?: StreamCallOptions): AsyncIterable<DeployStreamEvent>;
  /**
   * The deploy key the project has, or null when it has none yet; nothing is made (contract
   * 1.8.0 `existing_only`). An agent before 1.8.0 ignores that and makes the key (as 1.7.0).
   */
  getDeployKey(projectId: number, options?: AgentCallOptions): Promise<{ publicKey: string; fingerprint: string } | null>;
  /** The project's deploy key, made when it has none (an explicit request: POST …/deploy-key). */
  createDeployKey(projectId: number, options?: AgentCallOptions): Promise<{ publicKey: string; fingerprint: string }>;
}

/** ProxyService: repairs and reconciling of the reverse proxy routes. */
export interface ProxyApi {
  upsertRoute(route: RouteView, options?: AgentCallOptions): Promise<{ route: RouteView; created: boolean }>;
  removeRoute(domain: string, options?: AgentCallOptions): Promise<{ removed: boolean }>;
  listRoutes(options?: AgentCallOptions): Promise<RouteView[]>;
}

/** SshAccessService: the members' keys in a project's container, where to log in, ending sessions. */
export interface SshApi {
  setAuthorizedKeys(projectId: number, keys: Array<{ publicKey: string; userId: number }>, options?: AgentCallOptions): Promise<SshAccessView>;
  getSshAccess(projectId: number, options?: AgentCallOptions): Promise<SshAccessView>;
  /** EndSshSessions (contract 1.2.0; an older agent: AgentError UNIMPLEMENTED). */
  endSshSessions(projectId: number, userIds: number[], options?: AgentCallOptions): Promise<EndedSshSessionsView>;
}

/**
 * DatabaseService: one MySQL/MariaDB database plus an account with rights on it only. Rejects
 * with AgentError: INVALID_ARGUMENT (bad name), ALREADY_EXISTS, UNAVAILABLE (agent or database
 * server not answering).
 */
export interface DatabaseApi {
  createDatabase(input: CreateDatabaseInput, options?: AgentCallOptions): Promise<CreatedDatabaseView>;
  dropDatabase(target: { name: string; user: string }, options?: AgentCallOptions): Promise<DroppedDatabaseView>;
  listDatabases(namePrefix?: string, options?: AgentCallOptions): Promise<DatabaseView[]>;
  /** LockAccounts (contract 1.2.0; an older agent: AgentError UNIMPLEMENTED). */
  lockAccounts(users: string[], options?: AgentCallOptions): Promise<AccountLockView[]>;
  /** UnlockAccounts (contract 1.2.0; an older agent: AgentError UNIMPLEMENTED). */
  unlockAccounts(users: string[], options?: AgentCallOptions): Promise<AccountLockView[]>;
}

/**
 * VpnService: WireGuard peers of the dev server's interface. Rejects with AgentError:
 * INVALID_ARGUMENT, ALREADY_EXISTS (address taken), RESOURCE_EXHAUSTED (pool full), UNAVAILABLE.
 */
export interface VpnApi {
  createPeer(input: CreatePeerInput, options?: AgentCallOptions): Promise<{ peer: PeerView | null; created: boolean }>;
  removePeer(publicKey: string, options?: AgentCallOptions): Promise<{ removed: boolean }>;
  listPeers(options?: AgentCallOptions): Promise<PeerView[]>;
  getServerInfo(options?: AgentCallOptions): Promise<VpnServerView>;
}

/**
 * ScreenshotService: renders a project's site through the host's reverse proxy. A site that does
 * not load is a normal answer (see CaptureView.outcome); rejects with AgentError only for
 * INVALID_ARGUMENT (a domain outside the dev domain), UNAVAILABLE (no browser, agent down) and the
 * deadline (the capture's own timeout plus slack).
 */
export interface ScreenshotApi {
  capture(input: CaptureInput, options?: AgentCallOptions): Promise<CaptureView>;
}
