import { type Duplex, type Readable, Writable } from 'node:stream';
import Docker from 'dockerode';

/**
 * The agent's one door to the Docker engine: the only module that holds dockerode. Everyone else
 * (the container driver, the project network, SSH keys, deploys, stats, the route keeper, the
 * host probes) goes through a DockerEngine and the handles it gives, so the engine's API, its
 * stream framing and its exec live here once. Failures are dockerode's own errors; the callers
 * translate them (docker-errors.ts) into what their service answers.
 */

export type ContainerInfo = Docker.ContainerInfo;
export type ContainerInspectInfo = Docker.ContainerInspectInfo;
export type ContainerCreateOptions = Docker.ContainerCreateOptions;
export type ContainerListOptions = Docker.ContainerListOptions;
export type NetworkInspectInfo = Docker.NetworkInspectInfo;
export type NetworkCreateOptions = Docker.NetworkCreateOptions;

/** The parts of `docker info` the agent reads. */
export interface EngineInfo {
  ServerVersion?: string;
  DockerRootDir?: string;
  Driver?: string;
  DriverStatus?: Array<[string, string]> | null;
}

/** One progress line of a pull, as the engine sends it. */
export interface PullEvent {
  status?: string;
  id?: string;
  progress?: string;
  progressDetail?: { current?: number; total?: number };
  error?: string;
  errorDetail?: { message?: string };
}

/** A one-shot command in a container: its time and output are capped. */
export interface ExecOptions {
  /** Unset: the image's user. */
  user?: string;
  workingDir?: string;
  timeoutMs: number;
  /** Bytes of output (stdout and stderr together) kept. */
  maxOutputBytes: number;
  /**
   * Past maxOutputBytes: 'stop' stops reading at once (the answer is truncated and not finished),
   * 'drain' reads on to the command's end, keeping nothing more (its exit code still counts).
   */
  overLimit: 'stop' | 'drain';
  /** Each piece of output as it arrives, stdout and stderr in the order the engine sent them. */
  onOutput?: (chunk: Buffer, stream: 'stdout' | 'stderr') => void;
  /** Stops waiting when it aborts (as at the time limit: the command itself is not killed). */
  signal?: AbortSignal;
}

export interface ExecOutcome {
  /** -1 when it did not finish (timed out, or stopped at the output limit). */
  exitCode: number;
  stdout: Buffer;
  stderr: Buffer;
  timedOut: boolean;
  truncated: boolean;
  /** The signal aborted before the command ended. */
  cancelled: boolean;
}

/** An interactive command: stdin open, with or without a terminal. */
export interface InteractiveExecOptions {
  user?: string;
  workingDir?: string;
  env?: string[];
  /** With a terminal: one raw stream (no stdout/stderr framing), resizable. */
  tty: boolean;
  columns?: number;
  rows?: number;
}

export interface InteractiveExec {
  /** Write: the command's stdin. Read: its output (with tty: raw; without: use demux). */
  stream: Duplex;
  /** A terminal's new size (only with tty). */
  resize(columns: number, rows: number): Promise<void>;
  /** The exit code once it ended, null while it runs. */
  exitCode(): Promise<number | null>;
  /** Splits a stream without a terminal into stdout and stderr. */
  demux(stdout: Writable, stderr: Writable): void;
}

/** A writable that hands each chunk on synchronously (a PassThrough would do so a tick later, after the stream's end). */
function sink(take: (chunk: Buffer) => void): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      take(chunk);
      done();
    },
  });
}

/** One container of the engine (no call is made until a method is called). */
export class EngineContainer {
  constructor(
    private readonly handle: Docker.Container,
    private readonly modem: Docker['modem'],
  ) {}

  get id(): string {
    return this.handle.id;
  }

  /** `size`: also the writable layer's size (SizeRw), which costs the engine a walk of it. */
  inspect(options: { size?: boolean } = {}): Promise<ContainerInspectInfo & { SizeRw?: number }> {
    // `size` is a query parameter of the inspect endpoint that the typings do not name.
    return options.size ? this.handle.inspect(options as Docker.ContainerInspectOptions) : this.handle.inspect();
  }

  async start(): Promise<void> {
    await this.handle.start();
  }

  async stop(timeoutSeconds: number): Promise<void> {
    await this.handle.stop({ t: timeoutSeconds });
  }

  async restart(timeoutSeconds: number): Promise<void> {
    await this.handle.restart({ t: timeoutSeconds });
  }

  async pause(): Promise<void> {
    await this.handle.pause();
  }

  async unpause(): Promise<void> {
    await this.handle.unpause();
  }

  /** `force`: a running one too. Its anonymous volumes go with it. */
  async remove({ force }: { force: boolean }): Promise<void> {
    await this.handle.remove({ force, v: true });
  }

  /** The log so far (a tail, or a time window in epoch seconds), with timestamps. */
  async logs(which: { tail: number } | { since: number; until: number }): Promise<Buffer> {
    const buffer: unknown = await this.handle.logs({ follow: false, stdout: true, stderr: true, timestamps: true, ...which });
    return Buffer.isBuffer(buffer) ? buffer : Buffer.from(String(buffer));
  }

  /** The log from `tail` lines back, then as it grows, until the stream is destroyed. */
  async followLogs(tail: number): Promise<Readable> {
    return (await this.handle.logs({ follow: true, stdout: true, stderr: true, timestamps: true, tail })) as unknown as Readable;
  }

  /**
   * One stats reading. `oneShot`: answered at once, without the engine's second sample (no CPU %
   * of its own); otherwise the engine waits for two samples, about 2 s, to give one.
   */
  async stats({ oneShot }: { oneShot: boolean }): Promise<unknown> {
    return this.handle.stats(oneShot ? { stream: false, 'one-shot': true } : { stream: false });
  }

  /** A tar archive of `path` (a file or a folder with everything below it). */
  async getArchive(path: string): Promise<Readable> {
    return (await this.handle.getArchive({ path })) as Readable;
  }

  /** Unpacks a tar archive into the folder `path`. */
  async putArchive(archive: Readable | Buffer, path: string): Promise<void> {
    await this.handle.putArchive(archive, { path });
  }

  /**
   * Runs a command to its end, with a time limit and capped output. On a timeout the agent stops
   * waiting; a command still running in the container is not killed (the caller may).
   */
  async exec(cmd: string[], options: ExecOptions): Promise<ExecOutcome> {
    const exec = await this.handle.exec({
      Cmd: cmd,
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
      ...(options.user === undefined ? {} : { User: options.user }),
      ...(options.workingDir ? { WorkingDir: options.workingDir } : {}),
    });
    const stream = (await exec.start({ hijack: true, stdin: false })) as Readable;
    const kept: Record<'stdout' | 'stderr', Buffer[]> = { stdout: [], stderr: [] };
    let received = 0;
    let truncated = false;
    let stopped: (() => void) | undefined;
    const take = (name: 'stdout' | 'stderr') => (chunk: Buffer) => {
      if (truncated) return;
      let part = chunk;
      if (received + part.length > options.maxOutputBytes) {
        part = part.subarray(0, Math.max(0, options.maxOutputBytes - received));
        truncated = true;
      }
      received += part.length;
      if (part.length > 0) {
        kept[name].push(part);
        options.onOutput?.(part, name);
      }
      if (truncated && options.overLimit === 'stop') stopped?.();
    };
    this.modem.demuxStream(stream, sink(take('stdout')), sink(take('stderr')));
    let timer: NodeJS.Timeout | undefined;
    const ending = await Promise.race([
      new Promise<'ended'>((resolve, reject) => {
        stream.once('end', () => resolve('ended'));
        stream.once('close', () => resolve('ended'));
        stream.once('error', reject);
      }),
      new Promise<'timed-out'>((resolve) => {
        timer = setTimeout(() => resolve('timed-out'), options.timeoutMs);
      }),
      new Promise<'stopped'>((resolve) => {
        stopped = () => resolve('stopped');
      }),
      new Promise<'cancelled'>((resolve) => {
        if (options.signal?.aborted) resolve('cancelled');
        options.signal?.addEventListener('abort', () => resolve('cancelled'), { once: true });
      }),
    ]).finally(() => clearTimeout(timer));
    const output = { stdout: Buffer.concat(kept.stdout), stderr: Buffer.concat(kept.stderr), truncated };
    if (ending !== 'ended') {
      stream.destroy();
      return { exitCode: -1, ...output, timedOut: ending === 'timed-out', cancelled: ending === 'cancelled' };
    }
    const info = await exec.inspect();
    return { exitCode: info.ExitCode ?? -1, ...output, timedOut: false, cancelled: false };
  }

  /** Starts a command with stdin open (a terminal, a file editor's helper). */
  async openExec(cmd: string[], options: InteractiveExecOptions): Promise<InteractiveExec> {
    const exec = await this.handle.exec({
      Cmd: cmd,
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      Tty: options.tty,
      ...(options.user === undefined ? {} : { User: options.user }),
      ...(options.workingDir ? { WorkingDir: options.workingDir } : {}),
      ...(options.env ? { Env: options.env } : {}),
    });
    const stream = (await exec.start({ hijack: true, stdin: true, Tty: options.tty })) as Duplex;
    if (options.tty && options.columns && options.rows) await exec.resize({ w: options.columns, h: options.rows });
    return {
      stream,
      resize: async (columns, rows) => {
        await exec.resize({ w: columns, h: rows });
      },
      exitCode: async () => {
        const info = await exec.inspect();
        return info.Running ? null : (info.ExitCode ?? null);
      },
      demux: (stdout, stderr) => this.modem.demuxStream(stream, stdout, stderr),
    };
  }
}

/** One network of the engine. */
export class EngineNetwork {
  constructor(private readonly handle: Docker.Network) {}

  inspect(): Promise<NetworkInspectInfo> {
    return this.handle.inspect() as Promise<NetworkInspectInfo>;
  }

  async connect(containerId: string): Promise<void> {
    await this.handle.connect({ Container: containerId });
  }

  async disconnect(containerId: string, { force }: { force: boolean }): Promise<void> {
    await this.handle.disconnect({ Container: containerId, Force: force });
  }

  async remove(): Promise<void> {
    await this.handle.remove();
  }
}

export class DockerEngine {
  /** The engine at a unix socket (AGENT_DOCKER_SOCKET). */
  static atSocket(socketPath: string): DockerEngine {
    return new DockerEngine(new Docker({ socketPath }));
  }

  /** Tests hand in a client of their own (a private engine). */
  constructor(private readonly docker: Docker) {}

  async ping(): Promise<void> {
    await this.docker.ping();
  }

  info(): Promise<EngineInfo> {
    return this.docker.info() as Promise<EngineInfo>;
  }

  listContainers(options: ContainerListOptions): Promise<ContainerInfo[]> {
    return this.docker.listContainers(options);
  }

  container(id: string): EngineContainer {
    return new EngineContainer(this.docker.getContainer(id), this.docker.modem);
  }

  async createContainer(options: ContainerCreateOptions): Promise<EngineContainer> {
    return new EngineContainer(await this.docker.createContainer(options), this.docker.modem);
  }

  /** The engine's event stream (one JSON object a line) until it is destroyed. */
  async events(options: { since?: number; filters: Record<string, string[]> }): Promise<Readable> {
    return (await this.docker.getEvents(options)) as unknown as Readable;
  }

  /** The image's id (a 404 when the engine does not have it). */
  async imageId(image: string): Promise<string> {
    return (await this.docker.getImage(image).inspect()).Id;
  }

  /**
   * Starts pulling an image (a failure here: the engine or the registry refused at once). Its
   * progress comes from follow: onEvent gets each line (an error line too: the caller decides);
   * follow resolves when the engine is done, rejects when the stream fails; `signal` stops it.
   */
  async pull(image: string): Promise<{ follow(onEvent: (event: PullEvent) => void, signal?: AbortSignal): Promise<void> }> {
    const stream = (await this.docker.pull(image)) as Readable;
    return {
      follow: (onEvent, signal) =>
        new Promise<void>((resolve, reject) => {
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
              if (error) return reject(error);
              resolve();
            },
            onEvent,
          );
        }),
    };
  }

  listNetworks(filters: Record<string, string[]>): Promise<NetworkInspectInfo[]> {
    return this.docker.listNetworks({ filters }) as Promise<NetworkInspectInfo[]>;
  }

  network(id: string): EngineNetwork {
    return new EngineNetwork(this.docker.getNetwork(id));
  }

  async createNetwork(options: NetworkCreateOptions): Promise<void> {
    await this.docker.createNetwork(options);
  }
}
