/**
 * The fake agent's Docker: its containers, the streams watching them (WatchContainerEvents and
 * FollowContainerLogs) and the state changes that notify those streams. ContainerService,
 * ContainerStatsService and the agent's own test helpers (addManaged, autoStop, …) act through it.
 * It outlives the gRPC server, so a stop()/start() keeps containers and SSH ports.
 */
import { randomBytes } from 'node:crypto';
import type * as grpc from '@grpc/grpc-js';
import type { AutoStop, ContainerEvent, ContainerRef, FollowContainerLogsResponse, LogLine, WatchContainerEventsResponse } from '@devplein/proto/container';

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

/** An open WatchContainerEvents stream (its request says whether it wants unmanaged containers). */
export type EventSink = grpc.ServerWritableStream<unknown, WatchContainerEventsResponse>;
/** An open FollowContainerLogs stream. */
export type LogFollower = grpc.ServerWritableStream<unknown, FollowContainerLogsResponse>;

const statusOf = (state: string): string =>
  ({
    running: 'Up Less than a second',
    paused: 'Up Less than a second (Paused)',
    exited: 'Exited (0) Less than a second ago',
    created: 'Created',
  })[state] ?? state;

export class FakeDockerHost {
  readonly watchers = new Set<EventSink>();
  readonly followers = new Map<string, Set<LogFollower>>();
  /** The SSH port the next container with SSH gets. */
  nextSshPort = 22_000;

  /** `containers` is the agent's own map, which tests read and fill directly. */
  constructor(readonly containers: Map<string, FakeContainer>) {}

  makeContainer(input: Omit<FakeContainer, 'id' | 'status' | 'createdAt' | 'logs'>): FakeContainer {
    return { ...input, id: randomBytes(32).toString('hex'), status: statusOf(input.state), createdAt: new Date(), logs: [] };
  }

  find(ref: ContainerRef | undefined): FakeContainer | undefined {
    const target = ref?.ref;
    if (!target) return undefined;
    if (target.$case === 'name') return this.containers.get(target.value);
    return [...this.containers.values()].find((container) => container.projectId === target.value);
  }

  setState(container: FakeContainer, state: string, action: string): void {
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
}
