import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { upstreamOf, upstreamOfInspect } from './managed-containers.ts';
import {
  type ContainerEventView,
  type ContainerFilter,
  type ContainerLookup,
  type ContainerView,
  type ContainerWithUpstream,
  type DockerDriver,
  EXEC_OUTPUT_LIMIT_BYTES,
  type ExecResult,
  LABELS,
  type LifecycleAction,
  type NewContainer,
  type PullProgress,
  STOP_TIMEOUT_SECONDS,
} from './docker-driver.ts';
import { type InspectState, statusText } from './container-status.ts';
import { stateAfterEvent } from './event-state.ts';
import { type ExitState, ExitFactsCache } from './exit-facts.ts';
import { DockerError, engineMessage, engineStatus, isEngineUnreachable, isPortBindFailure, SshPortTakenError, translateDockerError } from './docker-errors.ts';
import { type DecodedLogLine, LogDecoder, decodeLogs } from './log-decoder.ts';
import { registryOf } from './references.ts';
import type { ContainerFirewall } from './container-firewall.ts';
import type { ContainerCreateOptions, ContainerInfo, ContainerInspectInfo, DockerEngine, EngineContainer } from './engine.ts';
import { ProjectNetwork } from './project-network.ts';
import { StepTimes } from '../../step-times.ts';

/** Where and how project containers run (from AgentConfig). */
export interface DockerDriverConfig {
  network: string;
  /** Default port of the project's web server inside the container. */
  httpPort: number;
  /** Host address the HTTP port is published on. */
  publishAddress: string;
  /** Host address SSH ports are published on. */
  sshBindAddress: string;
  /** Size limit of each container's writable layer in bytes; unset: none. */
  diskLimitBytes?: number | undefined;
}

/** What the driver needs besides the engine: the host firewall of the network, a logger. */
export interface DockerDriverExtras {
  /** Unset: the driver touches no firewall (unit tests, a private engine in tests). */
  firewall?: ContainerFirewall;
  logger?: Pick<Logger, 'info' | 'warn' | 'error'>;
  /**
   * Called after containers were moved to the recreated network: their published ports came
   * back on other host ports, so the proxy routes must be brought in line now (route keeper).
   */
  onContainersMoved?: () => void;
}

/** The engine's refusal of a writable-layer size limit (overlay2 not on XFS with pquota, another driver). */
export function isDiskLimitRefusal(message: string): boolean {
  return /storage-?opt|storage option|quota|not supported for .*size|size .*not supported/i.test(message);
}

/**
 * Why the engine cannot limit a container's disk, from `docker info`, or undefined when it looks
 * able to. Only a create proves it (whether the XFS is mounted with pquota is not in the info).
 */
export function diskLimitProblem(info: { Driver?: string; DriverStatus?: Array<[string, string]> | null }): string | undefined {
  // btrfs (subvolume qgroups) and zfs (dataset quotas) enforce the size option on their own.
  if (info.Driver === 'btrfs' || info.Driver === 'zfs') return undefined;
  if (info.Driver !== 'overlay2') return `the storage driver is ${info.Driver ?? 'unknown'}, the limit needs overlay2 on XFS mounted with pquota`;
  const backing = info.DriverStatus?.find(([key]) => key === 'Backing Filesystem')?.[1];
  if (backing !== undefined && backing !== 'xfs') return `Docker's data-root is on ${backing}, the limit needs XFS mounted with pquota`;
  return undefined;
}

/** Event actions that never change a container's state (exec and copy noise). */
const quietActions = /^(exec_|attach|detach|resize|top|archive-path|extract-to-dir|copy|export|commit)/;

const managedLabel = `${LABELS.managed}=true`;

/** The view of one listed container. */
export function toContainerView(info: ContainerInfo): ContainerView {
  const labels = info.Labels ?? {};
  const managed = labels[LABELS.managed] === 'true';
  return {
    id: info.Id,
    names: info.Names ?? [],
    image: info.Image,
    state: info.State,
    status: info.Status,
    labels,
    createdAt: new Date(info.Created * 1000),
    projectId: managed ? Number(labels[LABELS.projectId]) || 0 : 0,
    domain: managed ? (labels[LABELS.domain] ?? '') : '',
  };
}

/** The view of an inspected container, as the list would show it (createdAt in whole seconds, as listed). */
export function inspectedContainerView(info: ContainerInspectInfo, now = new Date()): ContainerView {
  const labels = info.Config?.Labels ?? {};
  const managed = labels[LABELS.managed] === 'true';
  return {
    id: info.Id,
    names: [info.Name],
    image: info.Config?.Image ?? info.Image,
    state: info.State.Status,
    status: statusText(info.State as InspectState, now),
    labels,
    createdAt: new Date(Math.floor(Date.parse(info.Created) / 1000) * 1000),
    projectId: managed ? Number(labels[LABELS.projectId]) || 0 : 0,
    domain: managed ? (labels[LABELS.domain] ?? '') : '',
  };
}

/** Keeps the containers a filter asks for (Docker's label filters cannot OR project ids). */
export function matchesFilter(view: Pick<ContainerView, 'labels' | 'projectId'>, filter: ContainerFilter): boolean {
  const managed = view.labels[LABELS.managed] === 'true';
  if (!managed && !filter.includeUnmanaged) return false;
  return filter.projectIds.length === 0 || filter.projectIds.includes(view.projectId);
}

/** Classifies a failed pull by Docker's message: unknown image, unreachable registry, or other. */
export function pullFailure(image: string, message: string, cause?: unknown): Error {
  if (/manifest unknown|not found|does not exist|pull access denied|name unknown|repository .* not found/i.test(message)) {
    return new DockerError('not-found', `image ${image} does not exist: ${message}`, { cause });
  }
  if (/connection refused|no such host|i\/o timeout|dial tcp|network is unreachable|deadline exceeded|TLS handshake|HTTP response to HTTPS|EOF/i.test(message)) {
    return new DockerError('unavailable', `the registry ${registryOf(image)} of ${image} does not answer: ${message}`, { cause });
  }
  return new Error(`pulling ${image} failed: ${message}`, { cause });
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function numberOr(value: unknown, fallback = 0): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

/** Reads a stream to its end (or until `signal` aborts), calling onChunk for each chunk. */
function consume(stream: Readable, onChunk: (chunk: Buffer) => void, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const abort = () => {
      stream.destroy();
      resolve();
    };
    if (signal?.aborted) return abort();
    signal?.addEventListener('abort', abort, { once: true });
    const done = (error?: Error) => {
      signal?.removeEventListener('abort', abort);
      if (error && !signal?.aborted) reject(error);
      else resolve();
    };
    stream.on('data', (chunk: Buffer | string) => onChunk(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    stream.once('end', () => done());
    stream.once('close', () => done());
    stream.once('error', (error: Error) => done(error));
  });
}

/** DockerDriver on the Docker engine (engine.ts); the project network is its own (project-network.ts). */
export class EngineDockerDriver implements DockerDriver {
  private readonly network: ProjectNetwork;
  /** The State after each container's last event that an event stream of this driver sent on (see notBehindEvents). */
  private readonly eventStates = new Map<string, InspectState>();
  /** OOMKilled and ExitCode of exited managed containers, inspected once per exit (exit-facts.ts). */
  private readonly exitFacts = new ExitFactsCache(async (id) => {
    try {
      return (await this.docker.container(id).inspect()).State as ExitState;
    } catch {
      return undefined;
    }
  });

  constructor(
    private readonly docker: DockerEngine,
    private readonly config: DockerDriverConfig,
    private readonly extras: DockerDriverExtras = {},
  ) {
    this.network = new ProjectNetwork(docker, config.network, extras);
  }

  ensureNetwork(): Promise<void> {
    return this.network.ensure();
  }

  /** Runs an engine call, translating its failure (see translateDockerError). */
  private async engine<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw translateDockerError(error, what);
    }
  }

  /**
   * Checks at start-up what can be checked before the first create: the project network
   * (project-network.ts), and whether the engine looks able to enforce AGENT_CONTAINER_DISK_LIMIT.
   * Logs what is wrong; never throws (the agent serves the rest).
   */
  async checkAtStart(): Promise<void> {
    await this.network.checkAtStart();
    await this.checkDiskLimit();
  }

  /** Logs an error when AGENT_CONTAINER_DISK_LIMIT is set and the engine cannot enforce it. */
  private async checkDiskLimit(): Promise<void> {
    const logger = this.extras.logger;
    if (this.config.diskLimitBytes === undefined) return;
    try {
      const problem = diskLimitProblem(await this.docker.info());
      if (problem) {
        logger?.error({ diskLimitBytes: this.config.diskLimitBytes }, `AGENT_CONTAINER_DISK_LIMIT is set but the Docker engine cannot enforce it: ${problem}. Creating containers will fail until Docker's data-root is on XFS with pquota, or the setting is emptied.`);
      }
    } catch (error) {
      logger?.warn({ err: error }, 'could not ask the Docker engine whether it can enforce AGENT_CONTAINER_DISK_LIMIT');
    }
  }

  async find(lookup: ContainerLookup): Promise<ContainerView | undefined> {
    if ('projectId' in lookup) {
      const found = await this.engine('listing containers', () =>
        // Only on this agent's network: another agent on the same engine may use the same project ids.
        this.docker.listContainers({
          all: true,
          filters: { label: [managedLabel, `${LABELS.projectId}=${lookup.projectId}`], network: [this.config.network] },
        }),
      );
      return found[0] ? this.notBehindEvents(toContainerView(found[0])) : undefined;
    }
    const found = await this.engine('listing containers', () =>
      this.docker.listContainers({ all: true, filters: { name: [`^/${escapeRegex(lookup.name)}$`] } }),
    );
    const exact = found.find((info) => info.Names?.includes(`/${lookup.name}`));
    return exact ? this.notBehindEvents(toContainerView(exact)) : undefined;
  }

  async list(filter: ContainerFilter): Promise<ContainerView[]> {
    const infos = await this.engine('listing containers', () =>
      this.docker.listContainers({
        all: true,
        ...(filter.includeUnmanaged ? {} : { filters: { label: [managedLabel], network: [this.config.network] } }),
      }),
    );
    const views = await Promise.all(infos.map(toContainerView).filter((view) => matchesFilter(view, filter)).map((view) => this.notBehindEvents(view)));
    const exits = await this.exitFacts.of(views);
    return views.map((view) => {
      const exit = exits.get(view.id);
      return exit ? { ...view, exit } : view;
    });
  }

  /**
   * The view, unless it is older than an event this agent already sent about the container: the
   * engine announces an event before it updates the copy its list reads (moby checkpoints after
   * LogContainerEvent; under load that takes a while), and a page reloads its list on every
   * event, so the state before the event would stay on it. Where the list and the last event
   * disagree, the container itself is asked (inspect reads the live container).
   */
  private async notBehindEvents(view: ContainerView): Promise<ContainerView> {
    const afterEvent = this.eventStates.get(view.id);
    if (afterEvent === undefined || afterEvent.Status === view.state) return view;
    const now = await this.stateNow(view.id);
    if (now === undefined) return view;
    // What the container says now: the next list that agrees needs no inspect.
    this.eventStates.set(view.id, now);
    return { ...view, state: now.Status, status: statusText(now) };
  }

  async imageId(image: string): Promise<string | undefined> {
    try {
      return await this.docker.imageId(image);
    } catch (error) {
      if (engineStatus(error) === 404) return undefined;
      throw translateDockerError(error, `inspecting image ${image}`);
    }
  }

  private async hasImage(image: string): Promise<boolean> {
    return (await this.imageId(image)) !== undefined;
  }

  async pull(image: string, onProgress: (event: PullProgress) => void, signal?: AbortSignal): Promise<void> {
    if (await this.hasImage(image)) {
      onProgress({ status: `Image ${image} is present locally`, layerId: '', currentBytes: 0, totalBytes: 0, progress: '' });
      return;
    }
    let pulling: Awaited<ReturnType<DockerEngine['pull']>>;
    try {
      pulling = await this.docker.pull(image);
    } catch (error) {
      if (isEngineUnreachable(error)) throw translateDockerError(error, `pulling ${image}`);
      throw pullFailure(image, engineMessage(error), error);
    }
    let failed: Error | undefined;
    try {
      await pulling.follow((event) => {
        if (event.error || event.errorDetail) {
          failed ??= pullFailure(image, event.errorDetail?.message ?? event.error ?? 'unknown error');
          return;
        }
        onProgress({
          status: event.status ?? '',
          layerId: event.id ?? '',
          currentBytes: numberOr(event.progressDetail?.current),
          totalBytes: numberOr(event.progressDetail?.total),
          progress: event.progress ?? '',
        });
      }, signal);
    } catch (error) {
      throw failed ?? pullFailure(image, engineMessage(error), error);
    }
    if (failed && !signal?.aborted) throw failed;
  }

  async usedSshPorts(): Promise<Set<number>> {
    const infos = await this.engine('listing containers', () => this.docker.listContainers({ all: true, filters: { label: [managedLabel, `${LABELS.ssh}=true`] } }));
    return new Set(infos.map((info) => Number(info.Labels?.[LABELS.sshPort])).filter((port) => Number.isInteger(port) && port > 0));
  }

  /** Docker's create options for a project container. */
  createOptions(spec: NewContainer): ContainerCreateOptions {
    const httpPort = `${this.config.httpPort}/tcp`;
    const labels: Record<string, string> = {
      [LABELS.managed]: 'true',
      [LABELS.projectId]: String(spec.projectId),
      [LABELS.domain]: spec.domain,
      [LABELS.ownerId]: String(spec.ownerUserId),
      [LABELS.ssh]: String(spec.ssh),
      [LABELS.wordpress]: String(spec.wordpress),
      [LABELS.httpPort]: String(this.config.httpPort),
    };
    const exposed: Record<string, object> = { [httpPort]: {} };
    const bindings: Record<string, Array<{ HostIp: string; HostPort: string }>> = {
      [httpPort]: [{ HostIp: this.config.publishAddress, HostPort: '' }],
    };
    // No host folder for the SSH keys: they are written into the container (ssh/container-keys.ts).
    if (spec.ssh) {
      if (!spec.sshPort) throw new Error('an SSH container needs sshPort');
      labels[LABELS.sshPort] = String(spec.sshPort);
      exposed['22/tcp'] = {};
      bindings['22/tcp'] = [{ HostIp: this.config.sshBindAddress, HostPort: String(spec.sshPort) }];
    }
    return {
      name: spec.name,
      Image: spec.image,
      Labels: labels,
      ExposedPorts: exposed,
      HostConfig: {
        Init: true,
        Memory: spec.limits.memoryBytes,
        // Same as Memory: no swap on top of the limit.
        MemorySwap: spec.limits.memoryBytes,
        NanoCpus: spec.limits.nanoCpus,
        PidsLimit: spec.limits.pids,
        RestartPolicy: { Name: 'unless-stopped' },
        Privileged: false,
        // Nothing by default: the image option names what its image needs (capabilities.ts
        // keeps anything outside the allow-list out before we get here).
        CapDrop: ['ALL'],
        CapAdd: [...spec.capabilities],
        SecurityOpt: ['no-new-privileges'],
        NetworkMode: this.config.network,
        PortBindings: bindings,
        // Docker takes bytes as a plain number; overlay2 enforces it with an XFS project quota.
        ...(this.config.diskLimitBytes ? { StorageOpt: { size: String(this.config.diskLimitBytes) } } : {}),
        LogConfig: { Type: 'json-file', Config: { 'max-size': '10m', 'max-file': '3' } },
      },
    };
  }

  async create(spec: NewContainer, prepare?: (containerId: string) => Promise<unknown>, steps = new StepTimes()): Promise<ContainerWithUpstream> {
    let container: EngineContainer;
    try {
      container = await steps.time('create', () => this.docker.createContainer(this.createOptions(spec))).catch(async (error: unknown) => {
        // The network was removed behind our back since ensureNetwork: make it again, once.
        if (engineStatus(error) !== 404 || !/network/i.test(engineMessage(error))) throw error;
        this.network.forget();
        await this.ensureNetwork();
        return this.docker.createContainer(this.createOptions(spec));
      });
    } catch (error) {
      if (engineStatus(error) === 409) {
        throw new DockerError('failed-precondition', `the name ${spec.name} is taken by another container`, { cause: error });
      }
      if (this.config.diskLimitBytes && isDiskLimitRefusal(engineMessage(error))) {
        throw new DockerError(
          'failed-precondition',
          `the Docker engine refuses the disk limit of AGENT_CONTAINER_DISK_LIMIT (${this.config.diskLimitBytes} bytes): ${engineMessage(error)}. It needs overlay2 on XFS mounted with pquota (see docs/operations.md), or an empty AGENT_CONTAINER_DISK_LIMIT.`,
          { cause: error },
        );
      }
      throw translateDockerError(error, `creating container ${spec.name}`);
    }
    try {
      await prepare?.(container.id);
      await steps.time('start', () => container.start());
    } catch (error) {
      // A container that cannot be prepared or start (no SSH user, port taken, bad image) is not left half-made.
      await container.remove({ force: true }).catch(() => undefined);
      if (spec.sshPort !== undefined && isPortBindFailure(engineMessage(error))) {
        throw new SshPortTakenError(spec.sshPort, `starting container ${spec.name}: ${engineMessage(error)}`, { cause: error });
      }
      throw translateDockerError(error, `starting container ${spec.name}`);
    }
    return steps.time('view', () => this.withUpstream(container, `container ${spec.name} vanished right after it was created`));
  }

  /**
   * The container now, with its upstream, from one inspect (no container listing per create or
   * action; inspect also never lags behind the change as the list may).
   */
  private async withUpstream(container: EngineContainer, goneMessage: string): Promise<ContainerWithUpstream> {
    let info: ContainerInspectInfo;
    try {
      info = await container.inspect();
    } catch (error) {
      if (engineStatus(error) === 404) throw new DockerError('not-found', goneMessage, { cause: error });
      throw translateDockerError(error, `inspecting ${container.id.slice(0, 12)}`);
    }
    return { ...inspectedContainerView(info), upstream: upstreamOfInspect(info, this.config) };
  }

  async act(id: string, action: LifecycleAction): Promise<ContainerWithUpstream> {
    const container = this.docker.container(id);
    try {
      switch (action) {
        case 'start':
          await container.start();
          break;
        case 'stop':
          await container.stop(STOP_TIMEOUT_SECONDS);
          break;
        case 'pause':
          await container.pause();
          break;
        case 'unpause':
          await container.unpause();
          break;
        case 'restart':
          await container.restart(STOP_TIMEOUT_SECONDS);
          break;
      }
    } catch (error) {
      // 304: already started / already stopped. The wanted state holds, so that is success.
      if (engineStatus(error) !== 304) throw translateDockerError(error, `${action} ${id.slice(0, 12)}`);
    }
    return this.withUpstream(container, `container ${id.slice(0, 12)} no longer exists`);
  }

  async remove(id: string): Promise<boolean> {
    try {
      await this.docker.container(id).remove({ force: true });
      return true;
    } catch (error) {
      if (engineStatus(error) === 404) return false;
      throw translateDockerError(error, `removing ${id.slice(0, 12)}`);
    }
  }

  async upstream(id: string): Promise<string | null> {
    const found = await this.engine('listing containers', () => this.docker.listContainers({ all: true, filters: { id: [id] } }));
    const info = found.find((entry) => entry.Id === id);
    return info ? upstreamOf(info, this.config) : null;
  }

  /** Whether the container's output is multiplexed (no TTY). */
  private async multiplexed(id: string): Promise<boolean> {
    const info = await this.engine(`inspecting ${id.slice(0, 12)}`, () => this.docker.container(id).inspect());
    return !info.Config.Tty;
  }

  logs(id: string, tail: number): Promise<DecodedLogLine[]> {
    return this.readLogs(id, { tail });
  }

  logsBetween(id: string, since: Date, until: Date): Promise<DecodedLogLine[]> {
    return this.readLogs(id, { since: Math.floor(since.getTime() / 1000), until: Math.ceil(until.getTime() / 1000) });
  }

  private async readLogs(id: string, which: { tail: number } | { since: number; until: number }): Promise<DecodedLogLine[]> {
    const multiplexed = await this.multiplexed(id);
    const buffer = await this.engine(`logs of ${id.slice(0, 12)}`, () =>
      this.docker.container(id).logs(which));
    return decodeLogs(buffer, multiplexed);
  }

  async followLogs(id: string, tail: number, onLine: (line: DecodedLogLine) => void, signal: AbortSignal): Promise<void> {
    const multiplexed = await this.multiplexed(id);
    const stream = await this.engine(`logs of ${id.slice(0, 12)}`, () => this.docker.container(id).followLogs(tail));
    const decoder = new LogDecoder(multiplexed);
    await consume(stream, (chunk) => decoder.push(chunk).forEach(onLine), signal);
    if (!signal.aborted) decoder.end().forEach(onLine);
  }

  /**
   * Which managed containers are this agent's: those on its own network. Another agent on the same
   * engine labels its containers alike (the "two agents never touch each other" rule), and Docker's
   * event filters cannot select by network. Known at the start from one listing; a container
   * created later is asked once, at its first event; a destroyed one is forgotten.
   */
  private async ownContainers(): Promise<{ has(id: string, action: string): Promise<boolean> }> {
    const listed = await this.engine('listing containers', () =>
      this.docker.listContainers({ all: true, filters: { label: [managedLabel], network: [this.config.network] } }),
    );
    const known = new Map<string, boolean>(listed.map((info) => [info.Id, true]));
    return {
      has: async (id, action) => {
        let mine = known.get(id);
        if (mine === undefined) {
          const info = await this.docker.container(id).inspect().catch(() => undefined);
          mine = info !== undefined && (info.HostConfig?.NetworkMode === this.config.network || this.config.network in (info.NetworkSettings?.Networks ?? {}));
          // A container gone before its first event was looked at is nobody's concern here.
          if (info !== undefined) known.set(id, mine);
        }
        if (action === 'destroy') known.delete(id);
        return mine;
      },
    };
  }

  /**
   * The State right after an event, from inspect: the engine's list may still show the state
   * before the event for a moment. undefined when the container is gone.
   */
  private async stateNow(id: string): Promise<InspectState | undefined> {
    try {
      return (await this.docker.container(id).inspect()).State as InspectState;
    } catch {
      return undefined;
    }
  }

  async watchEvents(filter: ContainerFilter & { since?: Date }, onEvent: (event: ContainerEventView) => void, signal: AbortSignal): Promise<void> {
    const stream = await this.engine('opening the event stream', () =>
      this.docker.events({
        ...(filter.since ? { since: Math.floor(filter.since.getTime() / 1000) } : {}),
        filters: { type: ['container'], ...(filter.includeUnmanaged ? {} : { label: [managedLabel] }) },
      }),
    );
    let pending = '';
    // One at a time, in Docker's order: each event waits for the state lookup of the one before.
    let chain = Promise.resolve();
    /** The State after each container's last event, so the next one may not need an inspect (event-state.ts). */
    const states = new Map<string, InspectState>();
    const ours = filter.includeUnmanaged ? undefined : await this.ownContainers();
    await consume(
      stream,
      (chunk) => {
        pending += chunk.toString('utf8');
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) {
          if (!line.trim()) continue;
          let raw: { Action?: string; status?: string; id?: string; timeNano?: number; time?: number; Actor?: { ID?: string; Attributes?: Record<string, string> } };
          try {
            raw = JSON.parse(line) as typeof raw;
          } catch {
            continue;
          }
          const action = raw.Action ?? raw.status ?? '';
          if (quietActions.test(action)) continue;
          const attributes = raw.Actor?.Attributes ?? {};
          const managed = attributes[LABELS.managed] === 'true';
          const projectId = managed ? Number(attributes[LABELS.projectId]) || 0 : 0;
          if (!matchesFilter({ labels: attributes, projectId }, filter)) continue;
          const containerId = raw.Actor?.ID ?? raw.id ?? '';
          const time = raw.timeNano ? new Date(Math.floor(raw.timeNano / 1e6)) : new Date((raw.time ?? 0) * 1000);
          chain = chain.then(async () => {
            if (ours && !(await ours.has(containerId, action))) return;
            if (action === 'start' || action === 'die' || action === 'destroy') this.exitFacts.forget(containerId);
            const now = action === 'destroy' ? undefined : (stateAfterEvent(action, states.get(containerId), time) ?? (await this.stateNow(containerId)));
            if (now) {
              states.set(containerId, now);
              this.eventStates.set(containerId, now);
            } else {
              states.delete(containerId);
              this.eventStates.delete(containerId);
            }
            if (signal.aborted) return;
            onEvent({
              containerId,
              containerName: attributes.name ?? '',
              projectId,
              action,
              state: now?.Status ?? '',
              status: now ? statusText(now) : '',
              time,
              attributes,
            });
          });
        }
      },
      signal,
    );
    await chain;
  }

  async exec(id: string, command: string[], { timeoutMs = 60_000, user }: { timeoutMs?: number; user?: string } = {}): Promise<ExecResult> {
    const outcome = await this.engine(`exec in ${id.slice(0, 12)}`, () =>
      this.docker.container(id).exec(command, { ...(user === undefined ? {} : { user }), timeoutMs, maxOutputBytes: EXEC_OUTPUT_LIMIT_BYTES, overLimit: 'stop' }),
    );
    const where = `${command[0]} in ${id.slice(0, 12)}`;
    if (outcome.truncated) throw new DockerError('failed-precondition', `${where} printed more than ${EXEC_OUTPUT_LIMIT_BYTES / 1024} KiB; the agent stopped reading`);
    if (outcome.timedOut) throw new DockerError('failed-precondition', `${where} did not finish within ${timeoutMs / 1000} s`);
    return { exitCode: outcome.exitCode, stdout: outcome.stdout.toString('utf8'), stderr: outcome.stderr.toString('utf8') };
  }
}
