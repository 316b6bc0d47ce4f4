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
 *
 * Each service is one file in fakes/ (typed as its generated server interface, so a new RPC is
 * an error there); this file holds the state tests reach (FakeAgentState), the test helpers and
 * the server.
 */
import { readFile } from 'node:fs/promises';
import * as grpc from '@grpc/grpc-js';
import { AutoStopReason, ContainerServiceService, type LogLine, LogStream } from '@devplein/proto/container';
import { InfoServiceService } from '@devplein/proto/info';
import { ProxyServiceService } from '@devplein/proto/proxy';
import { SshAccessServiceService } from '@devplein/proto/ssh_access';
import { DatabaseServiceService } from '@devplein/proto/database';
import { VpnServiceService } from '@devplein/proto/vpn';
import { ContainerStatsServiceService } from '@devplein/proto/container_stats';
import { HostStatsServiceService } from '@devplein/proto/host_stats';
import { type CaptureRequest, ScreenshotServiceService } from '@devplein/proto/screenshot';
import { DeployServiceService } from '@devplein/proto/deploy';
import type { TestCerts } from '../services/agent.ts';
import { type FakeCall, FakeAgentState } from './state.ts';
import { type FakeContainer, FakeDockerHost } from './docker-host.ts';
import { fakeRpc } from './rpc.ts';
import { infoService } from './info.ts';
import { containerService } from './container.ts';
import { proxyService } from './proxy.ts';
import { sshAccessService } from './ssh-access.ts';
import { databaseService } from './database.ts';
import { vpnService } from './vpn.ts';
import { screenshotService } from './screenshot.ts';
import { hostStatsService } from './host-stats.ts';
import { containerStatsService } from './container-stats.ts';
import { deployKeyOf, deployService } from './deploy.ts';

export type { FakeAgentMode, FakeCall } from './state.ts';
export type { FakeContainer } from './docker-host.ts';
export type { FakeDatabase } from './database.ts';
export type { FakeScreenshot } from './screenshot.ts';
export { DEFAULT_DEPLOY_SCRIPT, type FakeDeployScript } from './deploy.ts';
export { fakePng } from './png.ts';

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

export class FakeAgent extends FakeAgentState {
  /** The containers' open streams and state changes; it outlives the server across stop()/start(). */
  private readonly docker = new FakeDockerHost(this.containers);
  private readonly rpc = fakeRpc(this);
  private readonly heldDeploys = new Set<() => void>();
  private readonly unreachableRegistries: Set<string>;
  private readonly sshHost: string;
  private server: grpc.Server | null = null;
  port = 0;

  constructor(private readonly options: FakeAgentOptions) {
    super(options);
    this.unreachableRegistries = new Set(options.unreachableRegistries ?? []);
    this.sshHost = options.sshHost ?? 'dev.devplein.test';
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
    return this.docker.watchers.size;
  }

  async start(): Promise<void> {
    const { certs } = this.options;
    const [ca, cert, key] = await Promise.all([readFile(certs.ca), readFile(certs.agentCert), readFile(certs.agentKey)]);
    // One context for every service; each factory's parameter type names the part it uses.
    const context = {
      state: this,
      docker: this.docker,
      rpc: this.rpc,
      heldDeploys: this.heldDeploys,
      unreachableRegistries: this.unreachableRegistries,
      sshHost: this.sshHost,
      siteDomain: this.options.siteDomain ?? 'dev.devplein.test',
    };
    const server = new grpc.Server();
    server.addService(InfoServiceService, infoService(context));
    server.addService(ContainerServiceService, containerService(context));
    server.addService(ProxyServiceService, proxyService(context));
    server.addService(SshAccessServiceService, sshAccessService(context));
    server.addService(DatabaseServiceService, databaseService(context));
    server.addService(VpnServiceService, vpnService(context));
    server.addService(ScreenshotServiceService, screenshotService(context));
    server.addService(HostStatsServiceService, hostStatsService(context));
    server.addService(ContainerStatsServiceService, containerStatsService(context));
    server.addService(DeployServiceService, deployService(context));
    this.port = await new Promise<number>((resolve, reject) =>
      server.bindAsync(`127.0.0.1:${this.port}`, grpc.ServerCredentials.createSsl(ca, [{ private_key: key, cert_chain: cert }], true), (error, port) =>
        error ? reject(error) : resolve(port),
      ),
    );
    this.server = server;
  }

  /** Takes the agent off the network at once (open streams break). */
  async stop(): Promise<void> {
    this.docker.watchers.clear();
    this.server?.forceShutdown();
    this.server = null;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  /** A container that exists on the host without the agent having made it. */
  addUnmanaged(name: string, image = 'devplein-test/legacy:1', state = 'running', labels: Record<string, string> = {}): FakeContainer {
    const container = this.docker.makeContainer({ name, image, state, labels, projectId: 0, domain: '' });
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
    const container = this.docker.makeContainer({
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
    return this.docker.followers.get(name)?.size ?? 0;
  }

  /** Appends a log line (and sends it to followers). */
  log(name: string, text: string, stream: 'stdout' | 'stderr' = 'stdout'): void {
    const container = this.containers.get(name);
    if (!container) throw new Error(`no container ${name}`);
    const line: LogLine = { stream: stream === 'stderr' ? LogStream.LOG_STREAM_STDERR : LogStream.LOG_STREAM_STDOUT, text, time: new Date() };
    container.logs.push(line);
    for (const follower of this.docker.followers.get(name) ?? []) follower.write({ line });
  }

  /**
   * Stops `name` as the real agent's idle auto-stop does: state exited, the AutoStop recorded
   * (cleared again by a start), and the stop's events sent.
   */
  autoStop(name: string, input: { stoppedAt: Date; lastActivityAt: Date; idleAfterSeconds: number }): void {
    const container = this.containers.get(name);
    if (!container) throw new Error(`no container ${name}`);
    container.autoStop = { reason: AutoStopReason.AUTO_STOP_REASON_IDLE, ...input };
    this.docker.setState(container, 'exited', 'die');
    this.emit(name, 'stop');
  }

  /** The kernel killed `name` for memory and no restart policy started it again: exited (137) with OOMKilled. */
  oomKill(name: string): void {
    const container = this.containers.get(name);
    if (!container) throw new Error(`no container ${name}`);
    this.docker.setState(container, 'exited', 'oom');
    container.exit = { oomKilled: true, exitCode: 137 };
    container.status = 'Exited (137) Less than a second ago';
    this.emit(name, 'die');
  }

  /** Sends an event to every watcher as Docker would after a change of `name`. */
  emit(name: string, action: string): void {
    this.docker.emit(name, action);
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
    return deployKeyOf(projectId);
  }

  callsOf(method: string): FakeCall[] {
    return this.calls.filter((call) => call.method === method);
  }
}

/** Starts a fake agent on a free loopback port. */
export async function startFakeAgent(options: FakeAgentOptions): Promise<FakeAgent> {
  const agent = new FakeAgent(options);
  if (options.port) agent.port = options.port;
  await agent.start();
  return agent;
}
