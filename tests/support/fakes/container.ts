/**
 * The fake ContainerService: create, change state, remove and list containers, read and follow
 * their logs, pull images (scripted progress; some registries unreachable, unknown images
 * NOT_FOUND), watch events and reset a WordPress password. The containers live in FakeDockerHost.
 */
import { randomBytes } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { type Container, ContainerAction, type ContainerServiceServer, LogStream } from '@devplein/proto/container';
import type { EventSink, FakeContainer, FakeDockerHost } from './docker-host.ts';
import { type FakeRpc, failStream, serviceError } from './rpc.ts';
import type { FakeAgentState } from './state.ts';

export interface ContainerServiceContext {
  state: Pick<FakeAgentState, 'authorizedKeys' | 'keysWithCreate' | 'pullableImages'>;
  docker: FakeDockerHost;
  rpc: FakeRpc;
  /** Registries (the part before the first '/') whose pulls fail with UNAVAILABLE. */
  unreachableRegistries: ReadonlySet<string>;
}

/** The dev server's own containers (Caddy, a registry, …), which the real agent never acts on. */
const isInfrastructure = (container: { labels: Record<string, string> }): boolean =>
  container.labels['devplein.managed'] !== 'true' && container.labels['devplein.infrastructure'] === 'true';

function toProto(container: FakeContainer): Container {
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

export function containerService({ state, docker, rpc, unreachableRegistries }: ContainerServiceContext): ContainerServiceServer {
  return {
    createContainer: rpc.unary('createContainer', (request) => {
      const existing = [...docker.containers.values()].find((container) => container.projectId === request.projectId);
      if (existing) return { container: toProto(existing), created: false, authorizedKeysWritten: false };
      if (docker.containers.has(request.name)) return serviceError(grpc.status.ALREADY_EXISTS, `name ${request.name} is taken`);
      const labels: Record<string, string> = {
        'devplein.managed': 'true',
        'devplein.project-id': String(request.projectId),
        'devplein.domain': request.domain,
        'devplein.owner-id': String(request.ownerUserId),
        'devplein.ssh': String(request.ssh),
        'devplein.wordpress': String(request.wordpress),
        'devplein.http-port': '80',
      };
      if (request.ssh) labels['devplein.ssh-port'] = String(docker.nextSshPort++);
      const keysWritten = request.ssh && state.keysWithCreate;
      if (keysWritten) state.authorizedKeys.set(request.projectId, request.authorizedKeys.map((key) => ({ publicKey: key.publicKey, userId: Number(key.userId) })));
      const container = docker.makeContainer({ name: request.name, image: request.image, state: 'running', labels, projectId: request.projectId, domain: request.domain });
      docker.containers.set(container.name, container);
      container.logs.push(
        { stream: LogStream.LOG_STREAM_STDOUT, text: `${container.name} started`, time: new Date() },
        { stream: LogStream.LOG_STREAM_STDERR, text: `${container.name} warming up`, time: new Date() },
      );
      docker.emit(container.name, 'create');
      docker.emit(container.name, 'start');
      return { container: toProto(container), created: true, authorizedKeysWritten: keysWritten };
    }),
    changeContainerState: rpc.unary('changeContainerState', (request) => {
      const container = docker.find(request.container);
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
      docker.setState(container, transition.to, transition.event);
      return { container: toProto(container) };
    }),
    removeContainer: rpc.unary('removeContainer', (request) => {
      const container = docker.find(request.container);
      if (!container) return { removed: false };
      if (isInfrastructure(container)) return serviceError(grpc.status.PERMISSION_DENIED, `${container.name} is part of this dev server`);
      docker.setState(container, 'exited', 'die');
      docker.containers.delete(container.name);
      docker.emit(container.name, 'destroy');
      return { removed: true };
    }),
    listContainers: rpc.unary('listContainers', (request) => ({
      containers: [...docker.containers.values()]
        .filter((container) => request.includeUnmanaged || container.labels['devplein.managed'] === 'true')
        .filter((container) => request.projectIds.length === 0 || request.projectIds.includes(container.projectId))
        .map((container) => toProto(container)),
    })),
    getContainerLogs: rpc.unary('getContainerLogs', (request) => {
      const container = docker.find(request.container);
      if (!container) return serviceError(grpc.status.NOT_FOUND, 'no such container');
      return { lines: container.logs.slice(-(request.tail || 500)) };
    }),
    followContainerLogs: (call) => {
      void rpc.gate('followContainerLogs', call.request).then((failure) => {
        if (failure) return failStream(call, Object.assign(new Error(failure.details), failure));
        const container = docker.find(call.request.container);
        if (!container) return failStream(call, Object.assign(new Error('no such container'), serviceError(grpc.status.NOT_FOUND, 'no such container')));
        if (call.request.tail > 0) for (const line of container.logs.slice(-call.request.tail)) call.write({ line });
        if (container.state !== 'running' && container.state !== 'paused') return call.end();
        const set = docker.followers.get(container.name) ?? new Set();
        set.add(call);
        docker.followers.set(container.name, set);
        call.on('cancelled', () => set.delete(call));
      });
    },
    pullImage: (call) => {
      void rpc.gate('pullImage', call.request).then(async (failure) => {
        if (failure) return failStream(call, Object.assign(new Error(failure.details), failure));
        const image = call.request.image;
        const registry = image.includes('/') ? (image.split('/')[0] ?? '') : '';
        if (unreachableRegistries.has(registry)) {
          call.write({ status: `Pulling from ${image}`, layerId: '', currentBytes: 0, totalBytes: 0, progress: '' });
          return failStream(call, Object.assign(new Error('registry unreachable'), serviceError(grpc.status.UNAVAILABLE, `registry ${registry} unreachable`)));
        }
        if (!state.pullableImages.has(image)) {
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
      void rpc.gate('watchContainerEvents', call.request).then((failure) => {
        if (failure) return failStream(call, Object.assign(new Error(failure.details), failure));
        docker.watchers.add(call as unknown as EventSink);
        call.on('cancelled', () => docker.watchers.delete(call as unknown as EventSink));
        call.on('close', () => docker.watchers.delete(call as unknown as EventSink));
        // Headers now, so the client sees the stream open before the first event.
        call.sendMetadata(new grpc.Metadata());
      });
    },
    execWordpressPasswordReset: rpc.unary('execWordpressPasswordReset', (request) => {
      const container = docker.find(request.container);
      if (!container) return serviceError(grpc.status.NOT_FOUND, 'no such container');
      if (container.labels['devplein.wordpress'] !== 'true') return serviceError(grpc.status.FAILED_PRECONDITION, 'not a wordpress container');
      return { username: request.username || 'admin', password: randomBytes(12).toString('base64url') };
    }),
  };
}
