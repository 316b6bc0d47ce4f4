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
import { containerActionCode, containerEventView, containerRef, containerView, logLineView, pullProgressView } from './container-views.ts';
import { type StreamCall, withoutNulls } from './grpc-stream.ts';
import type { AgentDeadlines, UnaryCall } from './grpc-unary.ts';
import type { ContainerApi } from './host-apis.ts';

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
