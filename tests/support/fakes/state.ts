/**
 * The fake agent's state: what its services answer from and record into, and what tests read and
 * change directly (`agent.containers`, `agent.mode = 'failing'`, …). FakeAgent extends it, so each
 * service factory takes the agent itself, narrowed to the fields it uses, and sees a test's change
 * at the next call.
 */
import type { Route } from '@devplein/proto/proxy';
import type { GetServerInfoResponse, Peer } from '@devplein/proto/vpn';
import type { ContainerStats } from '@devplein/proto/container_stats';
import type { GetHostStatsResponse, LastBackup } from '@devplein/proto/host_stats';
import type { DeployCommit, DeployRepositoryRequest } from '@devplein/proto/deploy';
import type { FakeContainer } from './docker-host.ts';
import type { FakeDatabase } from './database.ts';
import type { FakeScreenshot } from './screenshot.ts';
import { DEFAULT_DEPLOY_SCRIPT, type FakeDeployScript } from './deploy.ts';
import { wireguardPublicKey } from './vpn.ts';

/** How the fake answers: normally, after a delay, with INTERNAL, or with UNAVAILABLE. */
export type FakeAgentMode = 'ok' | 'slow' | 'failing' | 'unavailable';

export interface FakeCall {
  method: string;
  request: unknown;
}

export class FakeAgentState {
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
  /** ContainerStats: what a container uses, by name (tests change it to see the card follow); defaults in container-stats.ts. */
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
  /** DeployService: GetDeployKey's answer (the project id goes into the comment). */
  deployKeyFingerprint = 'SHA256:ZmFrZS1kZXBsb3kta2V5LWZvci1kZXZwbGVpbi10ZXN0cw';
  /** Projects whose deploy key GetDeployKey has made. */
  readonly deployKeysMade = new Set<number>();
  /** Methods that fail with INTERNAL even in 'ok' mode (e.g. 'changeContainerState'). */
  readonly failingMethods = new Set<string>();
  /** Methods that answer UNIMPLEMENTED, as a real agent does for a service it does not have yet. */
  readonly unimplementedMethods = new Set<string>();
  /** Images a pull finds (others: NOT_FOUND). */
  readonly pullableImages: Set<string>;
  /** How many peer addresses the pool has (tests may shrink it to see RESOURCE_EXHAUSTED). */
  vpnPoolSize: number;

  constructor(options: { pullableImages?: readonly string[]; vpnPoolSize?: number }) {
    this.pullableImages = new Set(options.pullableImages ?? []);
    this.vpnPoolSize = options.vpnPoolSize ?? 253;
  }
}
