import type {
  ChangeContainerStateResponse,
  ContainerServiceClient,
  CreateContainerResponse,
  ExecWordpressPasswordResetResponse,
  FollowContainerLogsResponse,
  GetContainerLogsResponse,
  ListContainersResponse,
  PullImageResponse,
  RemoveContainerResponse,
  WatchContainerEventsResponse,
} from '@devplein/proto/container';
import { containerActionCode, containerEventView, containerRef, containerView, logLineView, pullProgressView, type ContainerActionName, type LogLineView, type ContainerEventView, type CreateContainerInput, type PullProgressView, type ContainerTarget, type ContainerView } from '../container-views.ts';
import { type StreamCall, withoutNulls } from '../grpc-stream.ts';
import type { AgentDeadlines, UnaryCall } from '../grpc-unary.ts';
import type { AgentCallOptions, StreamCallOptions } from '../call-options.ts';

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

/** ContainerService over the link: containers, logs, pulls, events, WordPress. */
export function createContainerClient(client: ContainerServiceClient, calls: { unary: UnaryCall; stream: StreamCall }, deadlines: AgentDeadlines): ContainerApi {
  const { unary, stream } = calls;
  return {
    async createContainer(input, callOptions) {
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
        authorizedKeys: (input.authorizedKeys ?? []).map((key) => ({ publicKey: key.publicKey, userId: key.userId })),
      };
      const response = await unary<CreateContainerResponse>(
        'CreateContainer',
        (md, opts, cb) => client.createContainer(request, md, opts, cb),
        { deadlineMs: deadlines.create, ...callOptions },
      );
      return { container: response.container ? containerView(response.container) : null, created: response.created, authorizedKeysWritten: response.authorizedKeysWritten };
    },
    async changeContainerState(target, action, callOptions) {
      const request = { container: containerRef(target), action: containerActionCode(action) };
      const response = await unary<ChangeContainerStateResponse>(
        'ChangeContainerState',
        (md, opts, cb) => client.changeContainerState(request, md, opts, cb),
        { deadlineMs: deadlines.hostChange, ...callOptions },
      );
      return response.container ? containerView(response.container) : null;
    },
    async removeContainer(target, callOptions) {
      const response = await unary<RemoveContainerResponse>(
        'RemoveContainer',
        (md, opts, cb) => client.removeContainer({ container: containerRef(target) }, md, opts, cb),
        { deadlineMs: deadlines.hostChange, ...callOptions },
      );
      return { removed: response.removed };
    },
    async listContainers(filter, callOptions) {
      const request = { projectIds: [...(filter.projectIds ?? [])], includeUnmanaged: filter.includeUnmanaged ?? false };
      const response = await unary<ListContainersResponse>('ListContainers', (md, opts, cb) => client.listContainers(request, md, opts, cb), callOptions);
      return response.containers.map(containerView);
    },
    async getContainerLogs(target, tail, callOptions) {
      const response = await unary<GetContainerLogsResponse>(
        'GetContainerLogs',
        (md, opts, cb) => client.getContainerLogs({ container: containerRef(target), tail }, md, opts, cb),
        callOptions,
      );
      return response.lines.map(logLineView);
    },
    followContainerLogs: (target, tail, streamOptions) =>
      withoutNulls(
        stream<FollowContainerLogsResponse, ReturnType<typeof logLineView> | null>(
          'FollowContainerLogs',
          (md, opts) => client.followContainerLogs({ container: containerRef(target), tail }, md, opts),
          (message) => (message.line ? logLineView(message.line) : null),
          streamOptions,
        ),
      ),
    pullImage: (image, projectId, streamOptions) =>
      stream<PullImageResponse, ReturnType<typeof pullProgressView>>(
        'PullImage',
        (md, opts) => client.pullImage({ image, projectId }, md, opts),
        pullProgressView,
        { deadlineMs: deadlines.pull, ...streamOptions },
      ),
    watchContainerEvents: (filter, streamOptions) =>
      withoutNulls(
        stream<WatchContainerEventsResponse, ReturnType<typeof containerEventView> | null>(
          'WatchContainerEvents',
          (md, opts) =>
            client.watchContainerEvents(
              { projectIds: [...(filter.projectIds ?? [])], includeUnmanaged: filter.includeUnmanaged ?? false, since: filter.since },
              md,
              opts,
            ),
          (message) => (message.event ? containerEventView(message.event) : null),
          streamOptions,
        ),
      ),
    async execWordpressPasswordReset(target, username, callOptions) {
      const response = await unary<ExecWordpressPasswordResetResponse>(
        'ExecWordpressPasswordReset',
        (md, opts, cb) => client.execWordpressPasswordReset({ container: containerRef(target), username: username ?? '' }, md, opts, cb),
        { deadlineMs: deadlines.hostChange, ...callOptions },
      );
      return { username: response.username, password: response.password };
    },
  };
}
