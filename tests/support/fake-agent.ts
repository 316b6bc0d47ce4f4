/**
 * A fake host agent for control-plane tests: a real gRPC server with mutual TLS (the test
 * certificates of makeTestCerts) that implements the generated InfoService, ContainerService,
 * ProxyService, SshAccessService, DatabaseService, VpnService, ScreenshotService, HostStatsService,
 * ContainerStatsService and DeployService in memory. Deploys stream scripted lines and outcomes,
 * can be held at a gate (queue tests) and are recorded with their requests. Containers live in a
 * map, events go to every open WatchContainerEvents stream, logs and pull progress are scripted;
 * databases and WireGuard peers live in maps too (peer addresses from a pool, lowest free first);
 * locked accounts, open MySQL connections and open SSH sessions are sets and maps a test fills.
 * Switches make it slow, failing or unavailable; stop()/start() take it off the network and back
 * on the same port.
 */
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { readFile } from 'node:fs/promises';
import * as grpc from '@grpc/grpc-js';
import {
  type AutoStop,
  AutoStopReason,
  type Container,
  ContainerAction,
  type ContainerEvent,
  type ContainerRef,
  type ContainerServiceServer,
  ContainerServiceService,
  type LogLine,
  LogStream,
  type WatchContainerEventsResponse,
} from '@devplein/proto/container';
import { HealthStatus, type InfoServiceServer, InfoServiceService } from '@devplein/proto/info';
import { type ProxyServiceServer, ProxyServiceService, type Route } from '@devplein/proto/proxy';
import { type SshAccessServiceServer, SshAccessServiceService } from '@devplein/proto/ssh_access';
import { type DatabaseServiceServer, DatabaseServiceService } from '@devplein/proto/database';
import { type GetServerInfoResponse, type Peer, type VpnServiceServer, VpnServiceService } from '@devplein/proto/vpn';
import { type ContainerStats, type ContainerStatsServiceServer, ContainerStatsServiceService } from '@devplein/proto/container_stats';
import { type GetHostStatsResponse, type HostStatsServiceServer, HostStatsServiceService, type LastBackup, type PartHealth } from '@devplein/proto/host_stats';
import { CaptureOutcome, type CaptureRequest, type CaptureResponse, type ScreenshotServiceServer, ScreenshotServiceService } from '@devplein/proto/screenshot';
import {
  type DeployCommit,
  DeployOutcome,
  DeployPhase,
  type DeployRepositoryRequest,
  type DeployServiceServer,
  DeployServiceService,
} from '@devplein/proto/deploy';
import type { TestCerts } from './agent.ts';

/** How the fake answers: normally, after a delay, with INTERNAL, or with UNAVAILABLE. */
export type FakeAgentMode = 'ok' | 'slow' | 'failing' | 'unavailable';

export interface FakeContainer {
  id: string;
  name: string;
  image: string;
  state: string;
  status: string;
  labels: Record<string, string>;
  projectId: number;
  domain: string;
  createdAt: Date;
  logs: LogLine[];
  /** Set while the container is stopped by the agent's idle auto-stop (see autoStop()). */
  autoStop?: AutoStop;
  /** Docker's State.OOMKilled and ExitCode while exited (a test sets it; cleared by a start). */
  exit?: { oomKilled: boolean; exitCode: number };
}

/** A database (and its account) the fake DatabaseService made. */
export interface FakeDatabase {
  name: string;
  user: string;
  password: string;
  ownerUserId: number;
}

export interface FakeCall {
  method: string;
  request: unknown;
}

export interface FakeAgentOptions {
  certs: TestCerts;
  /** Images a pull finds (others: NOT_FOUND). */
  pullableImages?: string[];
  /** Registries (the part before the first '/') that do not answer: a pull fails with UNAVAILABLE. */
  unreachableRegistries?: string[];
  /** SSH host name GetSshAccess reports. */
  sshHost?: string;
  /** Peer addresses: `10.8.0.{2..vpnPoolSize+1}/32` (the server has .1). Default 253. */
  vpnPoolSize?: number;
  /** Captures are accepted only for `{label}.{siteDomain}` (default dev.devplein.test). */
  siteDomain?: string;
  /** The loopback port to listen on (default: a free one). */
  port?: number;
}

/**
 * How the fake ScreenshotService answers for one domain: an outcome (any number, so a newer
 * value such as REDIRECTED_AWAY = 6 can be sent), or an RPC error; after an optional delay.
 */
export interface FakeScreenshot {
  outcome?: CaptureOutcome | number;
  errorReason?: string;
  httpStatus?: number;
  /** Answer with this gRPC error instead of a response. */
  rpcError?: { code: grpc.status; details: string };
  delayMs?: number;
  /** The capture answers only once this settles: a test holds a capture running for as long as it needs, whatever the load. */
  heldUntil?: Promise<void>;
}

/** What the fake DeployService streams for a deploy: progress lines, then its outcome. */
export interface FakeDeployScript {
  lines: Array<{ phase: DeployPhase; line: string; percent?: number }>;
  outcome: DeployOutcome;
  /** The finished message (default: a Dutch sentence per outcome). */
  message?: string;
  restarted?: boolean;
  /** Answer with this gRPC error instead of a stream (after recording the request). */
  rpcError?: { code: grpc.status; details: string };
}

/** The default deploy: a fetch with progress, a copy and a swap, deployed. */
export const DEFAULT_DEPLOY_SCRIPT: FakeDeployScript = {
  lines: [
    { phase: DeployPhase.DEPLOY_PHASE_FETCH, line: 'Ophalen: 50% (1/2)', percent: 50 },
    { phase: DeployPhase.DEPLOY_PHASE_FETCH, line: 'Ophalen: 100% (2/2)', percent: 100 },
    { phase: DeployPhase.DEPLOY_PHASE_COPY, line: 'Kopiëren naar de container: 3 bestanden' },
    { phase: DeployPhase.DEPLOY_PHASE_SWAP, line: 'Nieuwe versie staat online.' },
  ],
  outcome: DeployOutcome.DEPLOY_OUTCOME_DEPLOYED,
};

/** A small solid-colour PNG (RGB, 8 bit), the colour derived from `seed`: distinct per site. */
export function fakePng(seed: string, width = 320, height = 200): Buffer {
  const [r = 0, g = 0, b = 0] = createHash('sha1').update(seed).digest();
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set([r, g, b], 1 + x * 3);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  const chunk = (type: string, data: Buffer): Buffer => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function crc32(data: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of data) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return (crc ^ 0xffffffff) >>> 0;
}

type Sink = grpc.ServerWritableStream<unknown, WatchContainerEventsResponse>;

const statusOf = (state: string): string =>
  ({
    running: 'Up Less than a second',
    paused: 'Up Less than a second (Paused)',
    exited: 'Exited (0) Less than a second ago',
    created: 'Created',
  })[state] ?? state;

/** Ends a server stream with an error status (grpc-js turns an 'error' event into the status). */
function failStream(call: { emit(event: 'error', error: unknown): boolean }, error: Partial<grpc.ServiceError>): void {
  call.emit('error', error);
}

/** The dev server's own containers (Caddy, a registry, …), which the real agent never acts on. */
const isInfrastructure = (container: { labels: Record<string, string> }): boolean =>
  container.labels['devplein.managed'] !== 'true' && container.labels['devplein.infrastructure'] === 'true';

const serviceError = (code: grpc.status, details: string): Partial<grpc.ServiceError> => ({ code, details, message: details });

/** The agent contract's name rule for databases and accounts. */
const DATABASE_NAME = /^[a-z0-9_]{1,64}$/;
/** A WireGuard key: base64 of 32 bytes. */
const WIREGUARD_KEY = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;
const PASSWORD_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

const randomPassword = (): string => [...randomBytes(24)].map((byte) => PASSWORD_ALPHABET[byte % PASSWORD_ALPHABET.length]).join('');

/** A WireGuard public key (base64 of the raw 32 bytes), as the server's own key. */
function wireguardPublicKey(): string {
  const { publicKey } = generateKeyPairSync('x25519');
  return Buffer.from(publicKey.export({ format: 'jwk' }).x ?? '', 'base64url').toString('base64');
}

export class FakeAgent {
  readonly containers = new Map<string, FakeContainer>();
  readonly authorizedKeys = new Map<number, Array<{ publicKey: string; userId: number }>>();
  /** Whether a create writes the request's authorized_keys, as an agent since contract 1.4.0 does (false: an older agent). */
  keysWithCreate = true;
  readonly routes = new Map<string, Route>();
  /** DatabaseService state, by database name. */
  readonly databases = new Map<string, FakeDatabase>();
  /** Accounts LockAccounts locked (UnlockAccounts takes them out again). */
  readonly lockedAccounts = new Set<string>();
  /** Open connections per account, as a test sets them up; LockAccounts ends them. */
  readonly openConnections = new Map<string, number>();
  /** Open SSH sessions per project: the user id of each (0: one the SSH server's log does not name). */
  readonly sshSessions = new Map<number, number[]>();
  /** VpnService state, by public key. */
  readonly peers = new Map<string, Peer>();
  /** What GetServerInfo answers; tests may change it (e.g. a misconfigured allowed network). */
  vpnServer: GetServerInfoResponse = {
    publicKey: wireguardPublicKey(),
    endpoint: 'localhost:51820',
    allowedNetworks: ['10.8.0.1/32'],
    addressPool: '10.8.0.0/24',
    dnsServers: [],
    interfaceName: 'wg0',
  };
  readonly calls: FakeCall[] = [];
  /** ScreenshotService answers per domain; other domains get CAPTURED with fakePng(domain). */
  readonly screenshots = new Map<string, FakeScreenshot>();
  /** Delay of every capture without its own delayMs. */
  screenshotDelayMs = 0;
  /** Captures running now, per domain, and the most ever seen at once per domain and overall. */
  readonly capturesInFlight = new Map<string, number>();
  readonly peakCapturesPerDomain = new Map<string, number>();
  peakCapturesInFlight = 0;
  mode: FakeAgentMode = 'ok';
  /** Delay of every answer in 'slow' mode. */
  slowMs = 5_000;
  /** HostStats: the parts reported broken (docker, proxy, mysql, browser, wireguard → reason); the others are ok. */
  readonly brokenParts = new Map<string, string>();
  /** HostStats: the end of the agent's own certificate. */
  certificateNotAfter = new Date(Date.now() + 400 * 86_400_000);
  /** HostStats: this host's last backup (none recorded unless a test sets one). */
  lastBackup: LastBackup = { known: false, finishedAt: undefined, ok: false, sizeBytes: 0, message: '' };
  /** HostStats: the disks (default: a Docker data root of 100 GB with 40 GB free, an agent data dir). */
  disks: GetHostStatsResponse['disks'] = [
    { name: 'docker', path: '/var/lib/docker', totalBytes: 100e9, availableBytes: 40e9, ok: true, error: '' },
    { name: 'agent', path: '/var/lib/devplein-agent', totalBytes: 100e9, availableBytes: 40e9, ok: true, error: '' },
  ];
  /** HostStats: the host's load and memory (tests of the overview's sampler change them). */
  cpu: NonNullable<GetHostStatsResponse['cpu']> = { cores: 2, load1m: 0.5, load5m: 0.4, load15m: 0.3 };
  memory: NonNullable<GetHostStatsResponse['memory']> = { totalBytes: 8e9, availableBytes: 5e9 };
  /** ContainerStats: what a container uses, by name (tests change it to see the card follow); defaults below. */
  readonly containerStats = new Map<string, Partial<ContainerStats>>();
  /** ContainerStats: ms between two samples of a watch (a real agent: about 1000). */
  statsIntervalMs = 1_000;
  /** ContainerStats: WatchContainerStats streams open now. */
  statsWatchCount = 0;
  /** ContainerStats: ListContainerStats calls answered (each a sweep on a real agent). */
  statsSweeps = 0;
  /** DeployService: the script of every deploy (per project in deployScripts). */
  deployScript: FakeDeployScript = DEFAULT_DEPLOY_SCRIPT;
  readonly deployScripts = new Map<number, FakeDeployScript>();
  /** DeployService: the newest commit of the deployed branch (a roll back gets the commit it asks for). */
  headCommit: DeployCommit = { hash: 'a'.repeat(40), subject: 'Eerste versie', author: 'Sam Student', authorEmail: 'sam@devplein.test', time: new Date('2026-11-20T10:00:00Z') };
  /** DeployService: while true, every deploy waits after its lines until releaseDeploys(). */
  holdDeploys = false;
  /** DeployService: every DeployRepository request, in order. */
  readonly deployRequests: DeployRepositoryRequest[] = [];
  /** DeployService: deploys streaming now, and waiting at the gate now. */
  deploysRunning = 0;
  private readonly heldDeploys = new Set<() => void>();
  /** DeployService: GetDeployKey's answer (the project id goes into the comment). */
  deployKeyFingerprint = 'SHA256:ZmFrZS1kZXBsb3kta2V5LWZvci1kZXZwbGVpbi10ZXN0cw';
  /** Projects whose deploy key GetDeployKey has made. */
  readonly deployKeysMade = new Set<number>();
  /** Methods that fail with INTERNAL even in 'ok' mode (e.g. 'changeContainerState'). */
  readonly failingMethods = new Set<string>();
  /** Methods that answer UNIMPLEMENTED, as a real agent does for a service it does not have yet. */
  readonly unimplementedMethods = new Set<string>();
  readonly pullableImages: Set<string>;
  private readonly unreachableRegistries: Set<string>;
  private readonly sshHost: string;
  private readonly watchers = new Set<Sink>();
  private readonly followers = new Map<string, Set<grpc.ServerWritableStream<unknown, { line: LogLine }>>>();
  private server: grpc.Server | null = null;
  private nextSshPort = 22_000;
  /** How many peer addresses the pool has (tests may shrink it to see RESOURCE_EXHAUSTED). */
  vpnPoolSize: number;
  port = 0;

  constructor(private readonly options: FakeAgentOptions) {
    this.pullableImages = new Set(options.pullableImages ?? []);
    this.unreachableRegistries = new Set(options.unreachableRegistries ?? []);
    this.sshHost = options.sshHost ?? 'dev.devplein.test';
    this.vpnPoolSize = options.vpnPoolSize ?? 253;
  }

  /** The test certificates this agent serves with (a test may build its own client from them). */
  get certs(): TestCerts {
    return this.options.certs;
  }

  /** Capture calls recorded so far, for one domain or all. */
  capturesOf(domain?: string): CaptureRequest[] {
    return this.callsOf('capture')
      .map((call) => call.request as CaptureRequest)
      .filter((request) => domain === undefined || request.domain === domain);
  }

  get address(): string {
    return `localhost:${this.port}`;
  }

  /** Open WatchContainerEvents streams. */
  get watcherCount(): number {
    return this.watchers.size;
  }

  async start(): Promise<void> {
    const { certs } = this.options;
    const [ca, cert, key] = await Promise.all([readFile(certs.ca), readFile(certs.agentCert), readFile(certs.agentKey)]);
    const server = new grpc.Server();
    server.addService(InfoServiceService, this.info());
    server.addService(ContainerServiceService, this.containerService());
    server.addService(ProxyServiceService, this.proxyService());
    server.addService(SshAccessServiceService, this.sshService());
    server.addService(DatabaseServiceService, this.databaseService());
    server.addService(VpnServiceService, this.vpnService());
    server.addService(ScreenshotServiceService, this.screenshotService());
    server.addService(HostStatsServiceService, this.hostStatsService());
    server.addService(ContainerStatsServiceService, this.containerStatsService());
    server.addService(DeployServiceService, this.deployService());
    this.port = await new Promise<number>((resolve, reject) =>
      server.bindAsync(`127.0.0.1:${this.port}`, grpc.ServerCredentials.createSsl(ca, [{ private_key: key, cert_chain: cert }], true), (error, port) =>
        error ? reject(error) : resolve(port),
      ),
    );
    this.server = server;
  }

  /** Takes the agent off the network at once (open streams break). */
  async stop(): Promise<void> {
    this.watchers.clear();
    this.server?.forceShutdown();
    this.server = null;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  /** A container that exists on the host without the agent having made it. */
  addUnmanaged(name: string, image = 'devplein-test/legacy:1', state = 'running', labels: Record<string, string> = {}): FakeContainer {
    const container = this.makeContainer({ name, image, state, labels, projectId: 0, domain: '' });
    this.containers.set(name, container);
    return container;
  }

  /** A container of a project as if the agent had made it earlier (no events sent). */
  addManaged(input: { name: string; projectId: number; domain: string; image?: string; state?: string }): FakeContainer {
    const labels: Record<string, string> = {
      'devplein.managed': 'true',
      'devplein.project-id': String(input.projectId),
      'devplein.domain': input.domain,
      'devplein.http-port': '80',
    };
    const container = this.makeContainer({
      name: input.name,
      image: input.image ?? 'devplein/php:8.3',
      state: input.state ?? 'running',
      labels,
      projectId: input.projectId,
      domain: input.domain,
    });
    this.containers.set(container.name, container);
    return container;
  }

  /** Open FollowContainerLogs streams of `name` (a test waits for one before it writes lines). */
  followersOf(name: string): number {
    return this.followers.get(name)?.size ?? 0;
  }

  /** Appends a log line (and sends it to followers). */
  log(name: string, text: string, stream: 'stdout' | 'stderr' = 'stdout'): void {
    const container = this.containers.get(name);
    if (!container) throw new Error(`no container ${name}`);
    const line: LogLine = { stream: stream === 'stderr' ? LogStream.LOG_STREAM_STDERR : LogStream.LOG_STREAM_STDOUT, text, time: new Date() };
    container.logs.push(line);
    for (const follower of this.followers.get(name) ?? []) follower.write({ line });
  }

  /**
   * Stops `name` as the real agent's idle auto-stop does: state exited, the AutoStop recorded
   * (cleared again by a start), and the stop's events sent.
   */
  autoStop(name: string, input: { stoppedAt: Date; lastActivityAt: Date; idleAfterSeconds: number }): void {
    const container = this.containers.get(name);
    if (!container) throw new Error(`no container ${name}`);
    container.autoStop = { reason: AutoStopReason.AUTO_STOP_REASON_IDLE, ...input };
    this.setState(container, 'exited', 'die');
    this.emit(name, 'stop');
  }

  /** The kernel killed `name` for memory and no restart policy started it again: exited (137) with OOMKilled. */
  oomKill(name: string): void {
    const container = this.containers.get(name);
    if (!container) throw new Error(`no container ${name}`);
    this.setState(container, 'exited', 'oom');
    container.exit = { oomKilled: true, exitCode: 137 };
    container.status = 'Exited (137) Less than a second ago';
    this.emit(name, 'die');
  }

  /** Sends an event to every watcher as Docker would after a change of `name`. */
  emit(name: string, action: string): void {
    const container = this.containers.get(name);
    const event: ContainerEvent = {
      containerId: container?.id ?? '',
      containerName: name,
      projectId: container?.projectId ?? 0,
      action,
      state: action === 'destroy' ? '' : (container?.state ?? ''),
      status: action === 'destroy' ? '' : (container?.status ?? ''),
      time: new Date(),
      attributes: {},
      autoStop: container?.autoStop,
    };
    for (const sink of this.watchers) {
      if (container && container.projectId === 0 && !(sink.request as { includeUnmanaged?: boolean }).includeUnmanaged) continue;
      sink.write({ event });
    }
  }

  /** Deploys waiting at the gate (holdDeploys). */
  get heldDeployCount(): number {
    return this.heldDeploys.size;
  }

  /** Lets every held deploy finish (holdDeploys stays as it is for the next ones). */
  releaseDeploys(): void {
    const held = [...this.heldDeploys];
    this.heldDeploys.clear();
    for (const release of held) release();
  }

  /** The public deploy key GetDeployKey answers for a project. */
  deployKeyOf(projectId: number): string {
    return `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeDeployKeyForDevpleinTests000000000000000 devplein-project-${projectId}@fake-agent`;
  }

  callsOf(method: string): FakeCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  private makeContainer(input: Omit<FakeContainer, 'id' | 'status' | 'createdAt' | 'logs'>): FakeContainer {
    return { ...input, id: randomBytes(32).toString('hex'), status: statusOf(input.state), createdAt: new Date(), logs: [] };
  }

  private find(ref: ContainerRef | undefined): FakeContainer | undefined {
    const target = ref?.ref;
    if (!target) return undefined;
    if (target.$case === 'name') return this.containers.get(target.value);
    return [...this.containers.values()].find((container) => container.projectId === target.value);
  }

  private setState(container: FakeContainer, state: string, action: string): void {
    container.state = state;
    if (state === 'running' || state === 'paused') {
      container.autoStop = undefined;
      container.exit = undefined;
    }
    container.status = statusOf(state);
    this.emit(container.name, action);
    if (state !== 'running' && state !== 'paused') {
      for (const follower of this.followers.get(container.name) ?? []) follower.end();
      this.followers.delete(container.name);
    }
  }

  private toProto(container: FakeContainer): Container {
    return {
      id: container.id,
      names: [`/${container.name}`],
      image: container.image,
      state: container.state,
      status: container.status,
      labels: { ...container.labels },
      createdAt: container.createdAt,
      projectId: container.projectId,
      domain: container.domain,
      autoStop: container.autoStop,
      oomKilled: (container.state === 'exited' || container.state === 'dead') && (container.exit?.oomKilled ?? false),
      exitCode: container.state === 'exited' || container.state === 'dead' ? (container.exit?.exitCode ?? 0) : 0,
    };
  }

  /** The common gate of every call: records it, then applies the mode. Returns an error or null. */
  private async gate(method: string, request: unknown): Promise<Partial<grpc.ServiceError> | null> {
    this.calls.push({ method, request });
    if (this.mode === 'unavailable') return serviceError(grpc.status.UNAVAILABLE, 'fake agent: unavailable');
    if (this.mode === 'failing' || this.failingMethods.has(method)) return serviceError(grpc.status.INTERNAL, `fake agent: ${method} failed`);
    if (this.unimplementedMethods.has(method)) return serviceError(grpc.status.UNIMPLEMENTED, `fake agent: ${method} is not implemented`);
    if (this.mode === 'slow') await new Promise((resolve) => setTimeout(resolve, this.slowMs));
    return null;
  }

  private unary<Request, Response>(
    method: string,
    handle: (request: Request) => Response | Partial<grpc.ServiceError>,
  ): grpc.handleUnaryCall<Request, Response> {
    return (call, callback) => {
      void this.gate(method, call.request).then((failure) => {
        if (failure) return callback(failure as grpc.ServiceError, null);
        const result = handle(call.request);
        if (result && typeof result === 'object' && 'code' in result && typeof (result as { code: unknown }).code === 'number') {
          return callback(result as grpc.ServiceError, null);
        }
        callback(null, result as Response);
      });
    };
  }

  /** One sample of a running container: 3 % CPU, 212 MB of 512 MB unless a test set other numbers. */
  private statsSample(container: FakeContainer): ContainerStats {
    return {
      containerId: container.id,
      readAt: new Date(),
      cpuPercent: 3,
      onlineCpus: 2,
      memoryUsedBytes: 212 * 1024 * 1024,
      memoryLimitBytes: 512 * 1024 * 1024,
      networkRxBytes: 1_000,
      networkTxBytes: 2_000,
      blockReadBytes: 4_096,
      blockWriteBytes: 8_192,
      pids: 5,
      oomKilled: false,
      restartCount: 0,
      sizeRwBytes: 0,
      sizeRwAt: undefined,
      ...this.containerStats.get(container.name),
    };
  }

  private containerStatsService(): ContainerStatsServiceServer {
    const check = (ref: ContainerRef | undefined): { container: FakeContainer } | { error: Partial<grpc.ServiceError> } => {
      const container = this.find(ref);
      if (!container) return { error: serviceError(grpc.status.NOT_FOUND, 'no such container') };
      if (container.labels['devplein.managed'] !== 'true') return { error: serviceError(grpc.status.PERMISSION_DENIED, 'not a managed container') };
      if (container.state !== 'running') return { error: serviceError(grpc.status.FAILED_PRECONDITION, `the container is ${container.state}`) };
      return { container };
    };
    return {
      getContainerStats: this.unary('getContainerStats', (request) => {
        const checked = check(request.container);
        return 'error' in checked ? checked.error : { stats: this.statsSample(checked.container) };
      }),
      listContainerStats: this.unary('listContainerStats', () => {
        this.statsSweeps += 1;
        const running = [...this.containers.values()].filter((container) => container.state === 'running' && container.labels['devplein.managed'] === 'true');
        return { sweptAt: new Date(), containers: running.map((container) => ({ name: container.name, projectId: container.projectId, stats: this.statsSample(container) })) };
      }),
      watchContainerStats: (call) => {
        void this.gate('watchContainerStats', call.request).then((failure) => {
          if (failure) return failStream(call, Object.assign(new Error(failure.details), failure));
          const checked = check(call.request.container);
          if ('error' in checked) return failStream(call, Object.assign(new Error(checked.error.details), checked.error));
          const { container } = checked;
          this.statsWatchCount += 1;
          let open = true;
          const tick = () => {
            if (!open) return;
            if (container.state !== 'running') {
              stop();
              return call.end();
            }
            call.write({ stats: this.statsSample(container) });
          };
          const timer = setInterval(tick, this.statsIntervalMs);
          const stop = () => {
            if (!open) return;
            open = false;
            clearInterval(timer);
            this.statsWatchCount -= 1;
          };
          call.on('cancelled', stop);
          call.on('close', stop);
          tick();
        });
      },
    };
  }

  private hostStatsService(): HostStatsServiceServer {
    const part = (name: string): PartHealth => {
      const reason = this.brokenParts.get(name);
      return reason === undefined ? { ok: true, detail: `fake ${name}` } : { ok: false, detail: reason };
    };
    const countBy = (containers: FakeContainer[]) => {
      const counts = new Map<string, number>();
      for (const container of containers) counts.set(container.state, (counts.get(container.state) ?? 0) + 1);
      return [...counts].map(([state, count]) => ({ state, count }));
    };
    return {
      getHostStats: this.unary('getHostStats', (): GetHostStatsResponse => {
        const all = [...this.containers.values()];
        const managed = all.filter((container) => container.labels['devplein.managed'] === 'true');
        return {
          agentVersion: '0.0.0-fake',
          contractVersion: '1.5.0',
          hostname: 'fake-agent',
          collectedAt: new Date(),
          startedAt: new Date(),
          docker: part('docker'),
          proxy: part('proxy'),
          mysql: part('mysql'),
          browser: part('browser'),
          wireguard: part('wireguard'),
          disks: this.disks,
          containers: { known: true, total: all.length, managed: managed.length, byState: countBy(all), managedByState: countBy(managed) },
          certificate: { ok: true, notAfter: this.certificateNotAfter, detail: 'CN=localhost' },
          lastBackup: this.lastBackup,
          cpu: { ...this.cpu },
          memory: { ...this.memory },
        };
      }),
    };
  }

  private info(): InfoServiceServer {
    return {
      getInfo: this.unary('getInfo', () => ({
        agentVersion: '0.0.0-fake',
        contractVersion: '1.0.0',
        hostname: 'fake-agent',
        startedAt: new Date(),
        capabilities: {
          docker: { available: true, detail: 'fake' },
          proxy: { available: true, detail: 'fake' },
          mysql: { available: false, detail: 'fake' },
          chromium: { available: false, detail: 'fake' },
          wireguard: { available: false, detail: 'fake' },
        },
      })),
      health: this.unary('health', () => ({ status: HealthStatus.HEALTH_STATUS_SERVING })),
    };
  }

  private containerService(): ContainerServiceServer {
    return {
      createContainer: this.unary('createContainer', (request) => {
        const existing = [...this.containers.values()].find((container) => container.projectId === request.projectId);
        if (existing) return { container: this.toProto(existing), created: false, authorizedKeysWritten: false };
        if (this.containers.has(request.name)) return serviceError(grpc.status.ALREADY_EXISTS, `name ${request.name} is taken`);
        const labels: Record<string, string> = {
          'devplein.managed': 'true',
          'devplein.project-id': String(request.projectId),
          'devplein.domain': request.domain,
          'devplein.owner-id': String(request.ownerUserId),
          'devplein.ssh': String(request.ssh),
          'devplein.wordpress': String(request.wordpress),
          'devplein.http-port': '80',
        };
        if (request.ssh) labels['devplein.ssh-port'] = String(this.nextSshPort++);
        const keysWritten = request.ssh && this.keysWithCreate;
        if (keysWritten) this.authorizedKeys.set(request.projectId, request.authorizedKeys.map((key) => ({ publicKey: key.publicKey, userId: Number(key.userId) })));
        const container = this.makeContainer({ name: request.name, image: request.image, state: 'running', labels, projectId: request.projectId, domain: request.domain });
        this.containers.set(container.name, container);
        container.logs.push(
          { stream: LogStream.LOG_STREAM_STDOUT, text: `${container.name} started`, time: new Date() },
          { stream: LogStream.LOG_STREAM_STDERR, text: `${container.name} warming up`, time: new Date() },
        );
        this.emit(container.name, 'create');
        this.emit(container.name, 'start');
        return { container: this.toProto(container), created: true, authorizedKeysWritten: keysWritten };
      }),
      changeContainerState: this.unary('changeContainerState', (request) => {
        const container = this.find(request.container);
        if (!container) return serviceError(grpc.status.NOT_FOUND, 'no such container');
        // As the real agent (host-agent/src/services/container-access.ts): the host's own containers are off limits.
        if (isInfrastructure(container)) return serviceError(grpc.status.PERMISSION_DENIED, `${container.name} is part of this dev server`);
        const transitions: Partial<Record<ContainerAction, { from: string[]; to: string; event: string }>> = {
          [ContainerAction.CONTAINER_ACTION_START]: { from: ['exited', 'created', 'running'], to: 'running', event: 'start' },
          [ContainerAction.CONTAINER_ACTION_STOP]: { from: ['running', 'exited', 'paused'], to: 'exited', event: 'stop' },
          [ContainerAction.CONTAINER_ACTION_PAUSE]: { from: ['running'], to: 'paused', event: 'pause' },
          [ContainerAction.CONTAINER_ACTION_UNPAUSE]: { from: ['paused'], to: 'running', event: 'unpause' },
          [ContainerAction.CONTAINER_ACTION_RESTART]: { from: ['running', 'exited'], to: 'running', event: 'restart' },
        };
        const transition = transitions[request.action];
        if (!transition) return serviceError(grpc.status.INVALID_ARGUMENT, 'unknown action');
        if (!transition.from.includes(container.state)) return serviceError(grpc.status.FAILED_PRECONDITION, `cannot ${transition.event} a ${container.state} container`);
        this.setState(container, transition.to, transition.event);
        return { container: this.toProto(container) };
      }),
      removeContainer: this.unary('removeContainer', (request) => {
        const container = this.find(request.container);
        if (!container) return { removed: false };
        if (isInfrastructure(container)) return serviceError(grpc.status.PERMISSION_DENIED, `${container.name} is part of this dev server`);
        this.setState(container, 'exited', 'die');
        this.containers.delete(container.name);
        this.emit(container.name, 'destroy');
        return { removed: true };
      }),
      listContainers: this.unary('listContainers', (request) => ({
        containers: [...this.containers.values()]
          .filter((container) => request.includeUnmanaged || container.labels['devplein.managed'] === 'true')
          .filter((container) => request.projectIds.length === 0 || request.projectIds.includes(container.projectId))
          .map((container) => this.toProto(container)),
      })),
      getContainerLogs: this.unary('getContainerLogs', (request) => {
        const container = this.find(request.container);
        if (!container) return serviceError(grpc.status.NOT_FOUND, 'no such container');
        return { lines: container.logs.slice(-(request.tail || 500)) };
      }),
      followContainerLogs: (call) => {
        void this.gate('followContainerLogs', call.request).then((failure) => {
          if (failure) return failStream(call, Object.assign(new Error(failure.details), failure));
          const container = this.find(call.request.container);
          if (!container) return failStream(call, Object.assign(new Error('no such container'), serviceError(grpc.status.NOT_FOUND, 'no such container')));
          if (call.request.tail > 0) for (const line of container.logs.slice(-call.request.tail)) call.write({ line });
          if (container.state !== 'running' && container.state !== 'paused') return call.end();
          const set = this.followers.get(container.name) ?? new Set();
          set.add(call);
          this.followers.set(container.name, set);
          call.on('cancelled', () => set.delete(call));
        });
      },
      pullImage: (call) => {
        void this.gate('pullImage', call.request).then(async (failure) => {
          if (failure) return failStream(call, Object.assign(new Error(failure.details), failure));
          const image = call.request.image;
          const registry = image.includes('/') ? (image.split('/')[0] ?? '') : '';
          if (this.unreachableRegistries.has(registry)) {
            call.write({ status: `Pulling from ${image}`, layerId: '', currentBytes: 0, totalBytes: 0, progress: '' });
            return failStream(call, Object.assign(new Error('registry unreachable'), serviceError(grpc.status.UNAVAILABLE, `registry ${registry} unreachable`)));
          }
          if (!this.pullableImages.has(image)) {
            return failStream(call, Object.assign(new Error('not found'), serviceError(grpc.status.NOT_FOUND, `manifest for ${image} not found`)));
          }
          const layer = 'a1b2c3d4e5f6';
          const steps = [
            { status: `Pulling from ${image}`, layerId: '', currentBytes: 0, totalBytes: 0, progress: '' },
            { status: 'Downloading', layerId: layer, currentBytes: 512, totalBytes: 1024, progress: '[=====>     ]' },
            { status: 'Downloading', layerId: layer, currentBytes: 1024, totalBytes: 1024, progress: '[==========>]' },
            { status: 'Pull complete', layerId: layer, currentBytes: 0, totalBytes: 0, progress: '' },
            { status: `Status: Downloaded newer image for ${image}`, layerId: '', currentBytes: 0, totalBytes: 0, progress: '' },
          ];
          for (const step of steps) {
            call.write(step);
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
          call.end();
        });
      },
      watchContainerEvents: (call) => {
        void this.gate('watchContainerEvents', call.request).then((failure) => {
          if (failure) return failStream(call, Object.assign(new Error(failure.details), failure));
          this.watchers.add(call as unknown as Sink);
          call.on('cancelled', () => this.watchers.delete(call as unknown as Sink));
          call.on('close', () => this.watchers.delete(call as unknown as Sink));
          // Headers now, so the client sees the stream open before the first event.
          call.sendMetadata(new grpc.Metadata());
        });
      },
      execWordpressPasswordReset: this.unary('execWordpressPasswordReset', (request) => {
        const container = this.find(request.container);
        if (!container) return serviceError(grpc.status.NOT_FOUND, 'no such container');
        if (container.labels['devplein.wordpress'] !== 'true') return serviceError(grpc.status.FAILED_PRECONDITION, 'not a wordpress container');
        return { username: request.username || 'admin', password: randomBytes(12).toString('base64url') };
      }),
    };
  }

  private proxyService(): ProxyServiceServer {
    return {
      upsertRoute: this.unary('upsertRoute', (request) => {
        const route = request.route ?? { domain: '', upstream: '', projectId: 0 };
        const created = !this.routes.has(route.domain);
        this.routes.set(route.domain, route);
        return { route, created };
      }),
      removeRoute: this.unary('removeRoute', (request) => ({ removed: this.routes.delete(request.domain) })),
      listRoutes: this.unary('listRoutes', () => ({ routes: [...this.routes.values()] })),
    };
  }

  private sshService(): SshAccessServiceServer {
    const access = (projectId: number) => {
      const container = [...this.containers.values()].find((candidate) => candidate.projectId === projectId);
      if (!container) return serviceError(grpc.status.NOT_FOUND, 'no container for project');
      if (container.labels['devplein.ssh'] !== 'true') return serviceError(grpc.status.FAILED_PRECONDITION, 'image has no ssh');
      return {
        access: {
          host: this.sshHost,
          port: Number(container.labels['devplein.ssh-port']),
          user: 'student',
          keyCount: this.authorizedKeys.get(projectId)?.length ?? 0,
        },
      };
    };
    return {
      setAuthorizedKeys: this.unary('setAuthorizedKeys', (request) => {
        const answer = access(request.projectId);
        if ('code' in answer) return answer;
        this.authorizedKeys.set(request.projectId, request.keys.map((key) => ({ publicKey: key.publicKey, userId: Number(key.userId) })));
        return access(request.projectId);
      }),
      getSshAccess: this.unary('getSshAccess', (request) => access(request.projectId)),
      endSshSessions: this.unary('endSshSessions', (request) => {
        const answer = access(request.projectId);
        if ('code' in answer) return answer;
        const container = [...this.containers.values()].find((candidate) => candidate.projectId === request.projectId);
        if (container?.state === 'paused') return serviceError(grpc.status.FAILED_PRECONDITION, 'container is paused');
        if (container?.state !== 'running') return { containerRunning: false, endedSessions: 0, endedUnattributedSessions: 0, keptSessions: 0 };
        const leaving = new Set(request.userIds.map(Number));
        const open = this.sshSessions.get(request.projectId) ?? [];
        const kept = open.filter((userId) => userId !== 0 && !leaving.has(userId));
        this.sshSessions.set(request.projectId, kept);
        return {
          containerRunning: true,
          endedSessions: open.filter((userId) => leaving.has(userId)).length,
          endedUnattributedSessions: open.filter((userId) => userId === 0).length,
          keptSessions: kept.length,
        };
      }),
    };
  }


  private databaseService(): DatabaseServiceServer {
    return {
      createDatabase: this.unary('createDatabase', (request) => {
        if (!DATABASE_NAME.test(request.name) || !DATABASE_NAME.test(request.user)) {
          return serviceError(grpc.status.INVALID_ARGUMENT, `bad database or account name ${JSON.stringify(request.name)}`);
        }
        if (this.databases.has(request.name) || [...this.databases.values()].some((database) => database.user === request.user)) {
          return serviceError(grpc.status.ALREADY_EXISTS, `database or account ${request.name} exists`);
        }
        const database: FakeDatabase = { name: request.name, user: request.user, password: randomPassword(), ownerUserId: Number(request.ownerUserId) };
        this.databases.set(database.name, database);
        return { database: { name: database.name, user: database.user }, password: database.password };
      }),
      dropDatabase: this.unary('dropDatabase', (request) => {
        if (!DATABASE_NAME.test(request.name) || !DATABASE_NAME.test(request.user)) {
          return serviceError(grpc.status.INVALID_ARGUMENT, `bad database or account name ${JSON.stringify(request.name)}`);
        }
        const database = this.databases.get(request.name);
        const accountOwner = [...this.databases.values()].find((candidate) => candidate.user === request.user);
        if (database) this.databases.delete(database.name);
        if (accountOwner && accountOwner !== database) this.databases.delete(accountOwner.name);
        return { databaseDropped: database !== undefined, userDropped: accountOwner !== undefined };
      }),
      lockAccounts: this.unary('lockAccounts', (request) => {
        if (!request.users.every((user) => DATABASE_NAME.test(user))) return serviceError(grpc.status.INVALID_ARGUMENT, 'bad account name');
        return {
          accounts: request.users.map((user) => {
            const found = [...this.databases.values()].some((database) => database.user === user);
            const killedConnections = found ? (this.openConnections.get(user) ?? 0) : 0;
            if (found) {
              this.lockedAccounts.add(user);
              this.openConnections.delete(user);
            }
            return { user, found, killedConnections };
          }),
        };
      }),
      unlockAccounts: this.unary('unlockAccounts', (request) => {
        if (!request.users.every((user) => DATABASE_NAME.test(user))) return serviceError(grpc.status.INVALID_ARGUMENT, 'bad account name');
        return {
          accounts: request.users.map((user) => {
            const found = [...this.databases.values()].some((database) => database.user === user);
            if (found) this.lockedAccounts.delete(user);
            return { user, found, killedConnections: 0 };
          }),
        };
      }),
      listDatabases: this.unary('listDatabases', (request) => ({
        databases: [...this.databases.values()]
          .filter((database) => database.name.startsWith(request.namePrefix))
          .map((database) => ({ name: database.name, user: database.user })),
      })),
    };
  }

  /** The lowest free pool address, or null when the pool is full. */
  private freeAddress(): string | null {
    const taken = new Set([...this.peers.values()].map((peer) => peer.address));
    for (let host = 2; host < 2 + this.vpnPoolSize; host++) {
      const address = `10.8.0.${host}/32`;
      if (!taken.has(address)) return address;
    }
    return null;
  }

  private vpnService(): VpnServiceServer {
    return {
      createPeer: this.unary('createPeer', (request) => {
        if (!WIREGUARD_KEY.test(request.publicKey)) return serviceError(grpc.status.INVALID_ARGUMENT, 'bad public key');
        const existing = this.peers.get(request.publicKey);
        if (existing) return { peer: existing, created: false };
        let address = request.address;
        if (address && [...this.peers.values()].some((peer) => peer.address === address)) {
          return serviceError(grpc.status.ALREADY_EXISTS, `address ${address} belongs to another peer`);
        }
        address ||= this.freeAddress() ?? '';
        if (!address) return serviceError(grpc.status.RESOURCE_EXHAUSTED, 'address pool exhausted');
        const peer: Peer = {
          publicKey: request.publicKey,
          address,
          identifier: request.identifier,
          userId: Number(request.userId),
          latestHandshake: undefined,
          receivedBytes: 0,
          sentBytes: 0,
        };
        this.peers.set(peer.publicKey, peer);
        return { peer, created: true };
      }),
      removePeer: this.unary('removePeer', (request) => ({ removed: this.peers.delete(request.publicKey) })),
      listPeers: this.unary('listPeers', () => ({ peers: [...this.peers.values()] })),
      getServerInfo: this.unary('getServerInfo', () => ({ ...this.vpnServer, allowedNetworks: [...this.vpnServer.allowedNetworks], dnsServers: [...this.vpnServer.dnsServers] })),
    };
  }

  private deployService(): DeployServiceServer {
    return {
      // As the agent: made at the first ask without existing_only; with it, only a key made before (contract 1.8.0).
      getDeployKey: this.unary('getDeployKey', (request) => {
        if (request.existingOnly && !this.deployKeysMade.has(request.projectId)) return { publicKey: '', fingerprint: '' };
        this.deployKeysMade.add(request.projectId);
        return { publicKey: this.deployKeyOf(request.projectId), fingerprint: this.deployKeyFingerprint };
      }),
      deployRepository: (call) => {
        void this.gate('deployRepository', call.request).then(async (failure) => {
          if (failure) return failStream(call, Object.assign(new Error(failure.details), failure));
          const request = call.request;
          this.deployRequests.push(request);
          const script = this.deployScripts.get(request.projectId) ?? this.deployScript;
          if (script.rpcError) return failStream(call, Object.assign(new Error(script.rpcError.details), serviceError(script.rpcError.code, script.rpcError.details)));
          const container = [...this.containers.values()].find((each) => each.projectId === request.projectId);
          if (!container) return failStream(call, Object.assign(new Error('no container'), serviceError(grpc.status.NOT_FOUND, `project ${request.projectId} has no container`)));
          if (container.state !== 'running') return failStream(call, Object.assign(new Error('not running'), serviceError(grpc.status.FAILED_PRECONDITION, `container ${container.name} is ${container.state}`)));
          let cancelled = false;
          call.on('cancelled', () => {
            cancelled = true;
          });
          this.deploysRunning += 1;
          try {
            for (const line of script.lines) {
              if (cancelled) return;
              call.write({ event: { $case: 'progress', value: { phase: line.phase, line: line.line, percent: line.percent ?? -1 } } });
              await new Promise((resolve) => setTimeout(resolve, 5));
            }
            if (this.holdDeploys) {
              await new Promise<void>((resolve) => {
                this.heldDeploys.add(resolve);
                call.on('cancelled', () => {
                  this.heldDeploys.delete(resolve);
                  resolve();
                });
              });
            }
            if (cancelled) return;
            const deployed = script.outcome === DeployOutcome.DEPLOY_OUTCOME_DEPLOYED;
            const commit = request.commit ? { ...this.headCommit, hash: request.commit, subject: `Versie ${request.commit.slice(0, 7)}` } : this.headCommit;
            call.write({
              event: {
                $case: 'finished',
                value: {
                  outcome: script.outcome,
                  message: script.message ?? (deployed ? 'De nieuwe versie staat online.' : 'Het ophalen van de repository is mislukt.'),
                  commit: script.outcome === DeployOutcome.DEPLOY_OUTCOME_FETCH_FAILED ? undefined : commit,
                  files: deployed ? 3 : 0,
                  bytes: deployed ? 1_234 : 0,
                  durationMs: 42,
                  restarted: script.restarted ?? false,
                },
              },
            });
            call.end();
          } finally {
            this.deploysRunning -= 1;
          }
        });
      },
    };
  }

  private screenshotService(): ScreenshotServiceServer {
    const siteDomain = this.options.siteDomain ?? 'dev.devplein.test';
    const suffix = `.${siteDomain}`;
    const label = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;
    return {
      capture: (call, callback) => {
        const request = call.request;
        void this.gate('capture', request).then(async (failure) => {
          if (failure) return callback(failure as grpc.ServiceError, null);
          const domain = request.domain;
          if (!domain.endsWith(suffix) || !label.test(domain.slice(0, -suffix.length))) {
            return callback(serviceError(grpc.status.INVALID_ARGUMENT, `domain ${JSON.stringify(domain)} is not under ${siteDomain}`) as grpc.ServiceError, null);
          }
          const script = this.screenshots.get(domain) ?? {};
          const running = (this.capturesInFlight.get(domain) ?? 0) + 1;
          this.capturesInFlight.set(domain, running);
          this.peakCapturesPerDomain.set(domain, Math.max(this.peakCapturesPerDomain.get(domain) ?? 0, running));
          const total = [...this.capturesInFlight.values()].reduce((sum, count) => sum + count, 0);
          this.peakCapturesInFlight = Math.max(this.peakCapturesInFlight, total);
          try {
            const delay = script.delayMs ?? this.screenshotDelayMs;
            if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
            await script.heldUntil;
          } finally {
            const left = (this.capturesInFlight.get(domain) ?? 1) - 1;
            if (left > 0) this.capturesInFlight.set(domain, left);
            else this.capturesInFlight.delete(domain);
          }
          if (script.rpcError) return callback(serviceError(script.rpcError.code, script.rpcError.details) as grpc.ServiceError, null);
          const outcome = script.outcome ?? CaptureOutcome.CAPTURE_OUTCOME_CAPTURED;
          const rendered = outcome === CaptureOutcome.CAPTURE_OUTCOME_CAPTURED || outcome === CaptureOutcome.CAPTURE_OUTCOME_HTTP_ERROR;
          const response: CaptureResponse = {
            outcome,
            errorReason: script.errorReason ?? (outcome === CaptureOutcome.CAPTURE_OUTCOME_CAPTURED ? '' : 'fake agent: capture failed'),
            fullPng: rendered ? fakePng(`${domain}/full`, 1280, 800) : Buffer.alloc(0),
            thumbnailPng: rendered ? fakePng(domain) : Buffer.alloc(0),
            httpStatus: script.httpStatus ?? (rendered ? 200 : 0),
            capturedAt: new Date(),
          };
          callback(null, response);
        });
      },
    };
  }
}

/** Starts a fake agent on a free loopback port. */
export async function startFakeAgent(options: FakeAgentOptions): Promise<FakeAgent> {
  const agent = new FakeAgent(options);
  if (options.port) agent.port = options.port;
  await agent.start();
  return agent;
}
