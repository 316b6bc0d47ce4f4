/**
 * The fake ContainerStatsService: one sample, a sweep of every running managed container, and a
 * watch that samples every `statsIntervalMs`; numbers from `containerStats` per container, else
 * the defaults of statsSample.
 */
import * as grpc from '@grpc/grpc-js';
import type { ContainerRef } from '@devplein/proto/container';
import type { ContainerStats, ContainerStatsServiceServer } from '@devplein/proto/container_stats';
import type { FakeContainer, FakeDockerHost } from './docker-host.ts';
import { type FakeRpc, failStream, serviceError } from './rpc.ts';
import type { FakeAgentState } from './state.ts';

export interface ContainerStatsServiceContext {
  state: Pick<FakeAgentState, 'containerStats' | 'statsIntervalMs' | 'statsWatchCount' | 'statsSweeps'>;
  docker: FakeDockerHost;
  rpc: FakeRpc;
}

/** One sample of a running container: 3 % CPU, 212 MB of 512 MB unless a test set other numbers. */
function statsSample(state: ContainerStatsServiceContext['state'], container: FakeContainer): ContainerStats {
  return {
    containerId: container.id,
    readAt: new Date(),
    cpuPercent: 3,
    onlineCpus: 2,
    memoryUsedBytes: 212 * 1024 * 1024,
    memoryLimitBytes: 512 * 1024 * 1024,
    networkRxBytes: 1_000,
    networkTxBytes: 2_000,
    blockReadBytes: 4_096,
    blockWriteBytes: 8_192,
    pids: 5,
    oomKilled: false,
    restartCount: 0,
    sizeRwBytes: 0,
    sizeRwAt: undefined,
    ...state.containerStats.get(container.name),
  };
}

export function containerStatsService({ state, docker, rpc }: ContainerStatsServiceContext): ContainerStatsServiceServer {
  const check = (ref: ContainerRef | undefined): { container: FakeContainer } | { error: Partial<grpc.ServiceError> } => {
    const container = docker.find(ref);
    if (!container) return { error: serviceError(grpc.status.NOT_FOUND, 'no such container') };
    if (container.labels['devplein.managed'] !== 'true') return { error: serviceError(grpc.status.PERMISSION_DENIED, 'not a managed container') };
    if (container.state !== 'running') return { error: serviceError(grpc.status.FAILED_PRECONDITION, `the container is ${container.state}`) };
    return { container };
  };
  return {
    getContainerStats: rpc.unary('getContainerStats', (request) => {
      const checked = check(request.container);
      return 'error' in checked ? checked.error : { stats: statsSample(state, checked.container) };
    }),
    listContainerStats: rpc.unary('listContainerStats', () => {
      state.statsSweeps += 1;
      const running = [...docker.containers.values()].filter((container) => container.state === 'running' && container.labels['devplein.managed'] === 'true');
      return { sweptAt: new Date(), containers: running.map((container) => ({ name: container.name, projectId: container.projectId, stats: statsSample(state, container) })) };
    }),
    watchContainerStats: (call) => {
      void rpc.gate('watchContainerStats', call.request).then((failure) => {
        if (failure) return failStream(call, Object.assign(new Error(failure.details), failure));
        const checked = check(call.request.container);
        if ('error' in checked) return failStream(call, Object.assign(new Error(checked.error.details), checked.error));
        const { container } = checked;
        state.statsWatchCount += 1;
        let open = true;
        const tick = () => {
          if (!open) return;
          if (container.state !== 'running') {
            stop();
            return call.end();
          }
          call.write({ stats: statsSample(state, container) });
        };
        const timer = setInterval(tick, state.statsIntervalMs);
        const stop = () => {
          if (!open) return;
          open = false;
          clearInterval(timer);
          state.statsWatchCount -= 1;
        };
        call.on('cancelled', stop);
        call.on('close', stop);
        tick();
      });
    },
  };
}
