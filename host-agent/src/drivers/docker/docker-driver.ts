import type { StepTimes } from '../../step-times.ts';
import type { ContainerCapability } from './capabilities.ts';
import type { DecodedLogLine } from './log-decoder.ts';

/**
 * What the container service needs from the Docker engine. One interface so the service's
 * orchestration (validation, SSH keys, proxy routes) is separate from talking to the engine;
 * implemented on the Docker engine in engine-driver.ts. Failures are DockerError (see
 * docker-errors.ts) when they have a contract meaning, anything else is internal.
 */

/** Labels every container the agent makes carries (the route keeper and SSH service read them). */
export const LABELS = {
  managed: 'devplein.managed',
  projectId: 'devplein.project-id',
  domain: 'devplein.domain',
  ownerId: 'devplein.owner-id',
  ssh: 'devplein.ssh',
  sshPort: 'devplein.ssh-port',
  wordpress: 'devplein.wordpress',
  httpPort: 'devplein.http-port',
} as const;

/** Seconds Docker waits after SIGTERM before SIGKILL on stop/restart. */
export const STOP_TIMEOUT_SECONDS = 10;

/** One container as Docker lists it. */
export interface ContainerView {
  id: string;
  /** With the leading slash, as Docker reports them. */
  names: string[];
  image: string;
  /** Docker's State: created, running, paused, restarting, removing, exited, dead. */
  state: string;
  /** Docker's Status text, e.g. "Up 3 seconds", "Up 3 seconds (Paused)", "Exited (0) 2 hours ago". */
  status: string;
  labels: Record<string, string>;
  createdAt: Date;
  /** From `devplein.project-id` on managed containers; 0 otherwise. */
  projectId: number;
  /** From `devplein.domain` on managed containers; '' otherwise. */
  domain: string;
  /** Docker's State.OOMKilled and ExitCode of an exited or dead managed container (from a list); absent otherwise. */
  exit?: { oomKilled: boolean; exitCode: number };
}

/** A container right after a create or an action, with the upstream of its HTTP port (null: not published). */
export interface ContainerWithUpstream extends ContainerView {
  upstream: string | null;
}

/** Everything needed to make a project's container (already validated). */
export interface NewContainer {
  projectId: number;
  name: string;
  domain: string;
  image: string;
  ownerUserId: number;
  ssh: boolean;
  wordpress: boolean;
  limits: { memoryBytes: number; nanoCpus: number; pids: number };
  /** Linux capabilities added back after dropping ALL (already checked against the allow-list). */
  capabilities: readonly ContainerCapability[];
  /** Host port for 22/tcp; only with `ssh`. */
  sshPort?: number;
}

/** A container by its project (managed only) or by its name (any container). */
export type ContainerLookup = { projectId: number } | { name: string };

export type LifecycleAction = 'start' | 'stop' | 'pause' | 'unpause' | 'restart';

/** Which containers a list or event stream covers. */
export interface ContainerFilter {
  /** Empty: all. */
  projectIds: number[];
  includeUnmanaged: boolean;
}

/** One progress event of a pull. */
export interface PullProgress {
  status: string;
  layerId: string;
  currentBytes: number;
  totalBytes: number;
  progress: string;
}

/** One container event with the container's State and Status right after it. */
export interface ContainerEventView {
  containerId: string;
  containerName: string;
  projectId: number;
  action: string;
  /** '' after destroy (or when the container is already gone). */
  state: string;
  status: string;
  time: Date;
  attributes: Record<string, string>;
}

/** Output of one exec the agent reads at most: a student's container decides what it prints. */
export const EXEC_OUTPUT_LIMIT_BYTES = 64 * 1024;

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface DockerDriver {
  /**
   * Makes the project network exist with inter-container traffic off (recreating one an older
   * agent made without that) and its host firewall set; fails when the firewall cannot be set.
   */
  ensureNetwork(): Promise<void>;
  find(lookup: ContainerLookup): Promise<ContainerView | undefined>;
  list(filter: ContainerFilter): Promise<ContainerView[]>;
  /** The image's id (sha256:…) when it is present locally; undefined when it is not. */
  imageId(image: string): Promise<string | undefined>;
  /**
   * Pulls `image`, reporting progress. When the image is present locally it reports one event
   * and finishes without asking any registry. Unknown image → not-found; registry away →
   * unavailable.
   */
  pull(image: string, onProgress: (event: PullProgress) => void, signal?: AbortSignal): Promise<void>;
  /** SSH host ports taken by managed containers (their `devplein.ssh-port` labels). */
  usedSshPorts(): Promise<Set<number>>;
  /**
   * Creates and starts the container; a taken name is failed-precondition. `prepare` runs on
   * the created container before its first start (the SSH keys go in then); when it fails, the
   * container is removed and its error thrown. Returns it with its upstream (as `upstream()`).
   */
  create(spec: NewContainer, prepare?: (containerId: string) => Promise<unknown>, steps?: StepTimes): Promise<ContainerWithUpstream>;
  /** Runs a lifecycle action and returns the container after it, with its upstream (as `upstream()`). */
  act(id: string, action: LifecycleAction): Promise<ContainerWithUpstream>;
  /** Force-removes the container (and its anonymous volumes); false when it did not exist. */
  remove(id: string): Promise<boolean>;
  /** "address:port" the proxy dials for the container's HTTP port; null when not published. */
  upstream(id: string): Promise<string | null>;
  /** The last `tail` lines, oldest first. */
  logs(id: string, tail: number): Promise<DecodedLogLine[]>;
  /** The lines Docker received between `since` and `until` (whole seconds around them), oldest first. */
  logsBetween(id: string, since: Date, until: Date): Promise<DecodedLogLine[]>;
  /** Streams lines (after the last `tail` earlier ones) until the container stops or `signal` aborts. */
  followLogs(id: string, tail: number, onLine: (line: DecodedLogLine) => void, signal: AbortSignal): Promise<void>;
  /** Streams container events until `signal` aborts (resolves) or the stream breaks (rejects). */
  watchEvents(filter: ContainerFilter & { since?: Date }, onEvent: (event: ContainerEventView) => void, signal: AbortSignal): Promise<void>;
  /**
   * Runs a command in a running container (no shell, no TTY) and collects its output; as the
   * image's user unless `user` names one (e.g. '0' for root inside the container). More than
   * EXEC_OUTPUT_LIMIT_BYTES of output, or no end within `timeoutMs` (default 60 s), is
   * failed-precondition: the agent stops reading (the process may go on inside the container).
   */
  exec(id: string, command: string[], options?: { timeoutMs?: number; user?: string }): Promise<ExecResult>;
}
