import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { upstreamOf } from '../../jobs/managed-containers.ts';
import {
  type ContainerEventView,
  type ContainerFilter,
  type ContainerLookup,
  type ContainerView,
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
import { DockerError, engineMessage, engineStatus, isEngineUnreachable, translateDockerError } from './docker-errors.ts';
import { type DecodedLogLine, LogDecoder, decodeLogs, demuxOutput } from './log-decoder.ts';
import { registryOf } from './references.ts';

/** Where and how project containers run (from AgentConfig). */
export interface DockerDriverConfig {
  network: string;
  /** Default port of the project's web server inside the container. */
  httpPort: number;
  /** Host address the HTTP port is published on. */
  publishAddress: string;
  /** Host address SSH ports are published on. */
  sshBindAddress: string;
}

/** Event actions that never change a container's state (exec and copy noise). */
const quietActions = /^(exec_|attach|detach|resize|top|archive-path|extract-to-dir|copy|export|commit)/;

const managedLabel = `${LABELS.managed}=true`;

/** The view of one listed container. */
export function toContainerView(info: Docker.ContainerInfo): ContainerView {
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

/** DockerDriver on dockerode (the engine's HTTP API over its unix socket). */
export class DockerodeDriver implements DockerDriver {
  private network: Promise<void> | undefined;

  constructor(
    private readonly docker: Docker,
    private readonly config: DockerDriverConfig,
  ) {}

  /** Runs a dockerode call, translating its failure (see translateDockerError). */
  private async engine<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw translateDockerError(error, what);
    }
  }

  ensureNetwork(): Promise<void> {
    this.network ??= this.createNetworkIfMissing().catch((error: unknown) => {
      this.network = undefined;
      throw error;
    });
    return this.network;
  }

  private async createNetworkIfMissing(): Promise<void> {
    const name = this.config.network;
    const networks = await this.engine('listing networks', () => this.docker.listNetworks({ filters: { name: [name] } }));
    if (networks.some((network) => network.Name === name)) return;
    try {
      await this.docker.createNetwork({ Name: name, Driver: 'bridge', CheckDuplicate: true, Labels: { [LABELS.managed]: 'true' } });
    } catch (error) {
      // Someone else made it in between: fine.
      if (engineStatus(error) === 409) return;
      throw translateDockerError(error, `creating network ${name}`);
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
      return found[0] ? toContainerView(found[0]) : undefined;
    }
    const found = await this.engine('listing containers', () =>
      this.docker.listContainers({ all: true, filters: { name: [`^/${escapeRegex(lookup.name)}$`] } }),
    );
    const exact = found.find((info) => info.Names?.includes(`/${lookup.name}`));
    return exact ? toContainerView(exact) : undefined;
  }

  private async byId(id: string): Promise<ContainerView | undefined> {
    const found = await this.engine('listing containers', () => this.docker.listContainers({ all: true, filters: { id: [id] } }));
    const exact = found.find((info) => info.Id === id) ?? found[0];
    return exact ? toContainerView(exact) : undefined;
  }

  async list(filter: ContainerFilter): Promise<ContainerView[]> {
    const infos = await this.engine('listing containers', () =>
      this.docker.listContainers({
        all: true,
        ...(filter.includeUnmanaged ? {} : { filters: { label: [managedLabel], network: [this.config.network] } }),
      }),
    );
    return infos.map(toContainerView).filter((view) => matchesFilter(view, filter));
  }

  async hasImage(image: string): Promise<boolean> {
    try {
      await this.docker.getImage(image).inspect();
      return true;
    } catch (error) {
      if (engineStatus(error) === 404) return false;
      throw translateDockerError(error, `inspecting image ${image}`);
    }
  }

  async pull(image: string, onProgress: (event: PullProgress) => void, signal?: AbortSignal): Promise<void> {
    if (await this.hasImage(image)) {
      onProgress({ status: `Image ${image} is present locally`, layerId: '', currentBytes: 0, totalBytes: 0, progress: '' });
      return;
    }
    let stream: Readable;
    try {
      stream = (await this.docker.pull(image)) as Readable;
    } catch (error) {
      if (isEngineUnreachable(error)) throw translateDockerError(error, `pulling ${image}`);
      throw pullFailure(image, engineMessage(error), error);
    }
    await new Promise<void>((resolve, reject) => {
      let failed: Error | undefined;
      const abort = () => {
        stream.destroy();
        resolve();
      };
      if (signal?.aborted) return abort();
      signal?.addEventListener('abort', abort, { once: true });
      this.docker.modem.followProgress(
        stream,
        (error: Error | null) => {
          signal?.removeEventListener('abort', abort);
          if (signal?.aborted) return resolve();
          if (failed ?? error) return reject(failed ?? pullFailure(image, engineMessage(error), error));
          resolve();
        },
        (event: { status?: string; id?: string; progress?: string; progressDetail?: { current?: number; total?: number }; error?: string; errorDetail?: { message?: string } }) => {
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
        },
      );
    });
  }

  async usedSshPorts(): Promise<Set<number>> {
    const infos = await this.engine('listing containers', () => this.docker.listContainers({ all: true, filters: { label: [managedLabel, `${LABELS.ssh}=true`] } }));
    return new Set(infos.map((info) => Number(info.Labels?.[LABELS.sshPort])).filter((port) => Number.isInteger(port) && port > 0));
  }

  /** Docker's create options for a project container. */
  createOptions(spec: NewContainer): Docker.ContainerCreateOptions {
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
        LogConfig: { Type: 'json-file', Config: { 'max-size': '10m', 'max-file': '3' } },
      },
    };
  }

  async create(spec: NewContainer, prepare?: (containerId: string) => Promise<unknown>): Promise<ContainerView> {
    let container: Docker.Container;
    try {
      container = await this.docker.createContainer(this.createOptions(spec)).catch(async (error: unknown) => {
        // The network was removed behind our back since ensureNetwork: make it again, once.
        if (engineStatus(error) !== 404 || !/network/i.test(engineMessage(error))) throw error;
        this.network = undefined;
        await this.ensureNetwork();
        return this.docker.createContainer(this.createOptions(spec));
      });
    } catch (error) {
      if (engineStatus(error) === 409) {
        throw new DockerError('failed-precondition', `the name ${spec.name} is taken by another container`, { cause: error });
      }
      throw translateDockerError(error, `creating container ${spec.name}`);
    }
    try {
      await prepare?.(container.id);
      await container.start();
    } catch (error) {
      // A container that cannot be prepared or start (no SSH user, port taken, bad image) is not left half-made.
      await container.remove({ force: true, v: true }).catch(() => undefined);
      throw translateDockerError(error, `starting container ${spec.name}`);
    }
    const view = await this.byId(container.id);
    if (!view) throw new DockerError('not-found', `container ${spec.name} vanished right after it was created`);
    return view;
  }

  async act(id: string, action: LifecycleAction): Promise<ContainerView> {
    const container = this.docker.getContainer(id);
    try {
      switch (action) {
        case 'start':
          await container.start();
          break;
        case 'stop':
          await container.stop({ t: STOP_TIMEOUT_SECONDS });
          break;
        case 'pause':
          await container.pause();
          break;
        case 'unpause':
          await container.unpause();
          break;
        case 'restart':
          await container.restart({ t: STOP_TIMEOUT_SECONDS });
          break;
      }
    } catch (error) {
      // 304: already started / already stopped. The wanted state holds, so that is success.
      if (engineStatus(error) !== 304) throw translateDockerError(error, `${action} ${id.slice(0, 12)}`);
    }
    const view = await this.byId(id);
    if (!view) throw new DockerError('not-found', `container ${id.slice(0, 12)} no longer exists`);
    return view;
  }

  async remove(id: string): Promise<boolean> {
    try {
      await this.docker.getContainer(id).remove({ force: true, v: true });
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
    const info = await this.engine(`inspecting ${id.slice(0, 12)}`, () => this.docker.getContainer(id).inspect());
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
      this.docker.getContainer(id).logs({ follow: false, stdout: true, stderr: true, timestamps: true, ...which }),
    );
    return decodeLogs(Buffer.isBuffer(buffer) ? buffer : Buffer.from(String(buffer)), multiplexed);
  }

  async followLogs(id: string, tail: number, onLine: (line: DecodedLogLine) => void, signal: AbortSignal): Promise<void> {
    const multiplexed = await this.multiplexed(id);
    const stream = (await this.engine(`logs of ${id.slice(0, 12)}`, () =>
      this.docker.getContainer(id).logs({ follow: true, stdout: true, stderr: true, timestamps: true, tail }),
    )) as unknown as Readable;
    const decoder = new LogDecoder(multiplexed);
    await consume(stream, (chunk) => decoder.push(chunk).forEach(onLine), signal);
    if (!signal.aborted) decoder.end().forEach(onLine);
  }

  /**
   * State and Status right after an event, from inspect: the engine's list may still show the
   * state before the event for a moment. undefined when the container is gone.
   */
  private async stateNow(id: string): Promise<{ state: string; status: string } | undefined> {
    try {
      const info = await this.docker.getContainer(id).inspect();
      return { state: info.State.Status, status: statusText(info.State as InspectState) };
    } catch {
      return undefined;
    }
  }

  async watchEvents(filter: ContainerFilter & { since?: Date }, onEvent: (event: ContainerEventView) => void, signal: AbortSignal): Promise<void> {
    const stream = (await this.engine('opening the event stream', () =>
      this.docker.getEvents({
        ...(filter.since ? { since: Math.floor(filter.since.getTime() / 1000) } : {}),
        filters: { type: ['container'], ...(filter.includeUnmanaged ? {} : { label: [managedLabel] }) },
      }),
    )) as unknown as Readable;
    let pending = '';
    // One at a time, in Docker's order: each event waits for the state lookup of the one before.
    let chain = Promise.resolve();
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
            const now = action === 'destroy' ? undefined : await this.stateNow(containerId);
            if (signal.aborted) return;
            onEvent({
              containerId,
              containerName: attributes.name ?? '',
              projectId,
              action,
              state: now?.state ?? '',
              status: now?.status ?? '',
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
    const container = this.docker.getContainer(id);
    const exec = await this.engine(`exec in ${id.slice(0, 12)}`, () =>
      container.exec({ Cmd: command, AttachStdout: true, AttachStderr: true, Tty: false, ...(user === undefined ? {} : { User: user }) }),
    );
    const stream = (await this.engine(`exec in ${id.slice(0, 12)}`, () => exec.start({ hijack: true, stdin: false }))) as Readable;
    const chunks: Buffer[] = [];
    let received = 0;
    const stop = new AbortController();
    const timeout = AbortSignal.timeout(timeoutMs);
    await consume(
      stream,
      (chunk) => {
        received += chunk.length;
        // Counted with the stream's frame headers: a little stricter than the output alone.
        if (received > EXEC_OUTPUT_LIMIT_BYTES) stop.abort();
        else chunks.push(chunk);
      },
      AbortSignal.any([timeout, stop.signal]),
    );
    const where = `${command[0]} in ${id.slice(0, 12)}`;
    if (stop.signal.aborted) throw new DockerError('failed-precondition', `${where} printed more than ${EXEC_OUTPUT_LIMIT_BYTES / 1024} KiB; the agent stopped reading`);
    if (timeout.aborted) throw new DockerError('failed-precondition', `${where} did not finish within ${timeoutMs / 1000} s`);
    const info = await this.engine(`exec in ${id.slice(0, 12)}`, () => exec.inspect());
    return { exitCode: info.ExitCode ?? -1, ...demuxOutput(Buffer.concat(chunks)) };
  }
}
