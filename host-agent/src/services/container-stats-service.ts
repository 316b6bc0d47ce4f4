import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { ContainerRef } from '@devplein/proto/container';
import { type ContainerStats, ContainerStatsServiceService, type ContainerStatsServiceServer, type ListContainerStatsResponse } from '@devplein/proto/container_stats';
import type { ContainerStatsSample } from '../drivers/docker/container-stats.ts';
import type { ContainerView, DockerDriver } from '../drivers/docker/docker-driver.ts';
import { DockerError } from '../drivers/docker/docker-errors.ts';
import { parseContainerName, parseId } from '../drivers/docker/references.ts';
import type { StatsHub } from '../drivers/docker/stats-hub.ts';
import type { StatsSweeper, Sweep } from '../drivers/docker/stats-sweep.ts';
import { requireManaged } from './container-access.ts';
import { dockerFailure } from './docker-status.ts';
import { grpcReply } from './grpc-reply.ts';

export interface ContainerStatsServiceOptions {
  docker: Pick<DockerDriver, 'find'>;
  hub: StatsHub;
  /** Every running managed container's sample at once (ListContainerStats). */
  sweeper: Pick<StatsSweeper, 'current'>;
  logger: Logger;
}

export function toContainerStats(sample: ContainerStatsSample): ContainerStats {
  return { ...sample };
}

/**
 * ContainerStatsService (contract 1.6.0): one sample, or a stream of them, of a managed running
 * container. Every watch goes through the StatsHub: one Docker stats stream per container.
 */
export function toListContainerStatsResponse(sweep: Sweep): ListContainerStatsResponse {
  return {
    sweptAt: sweep.sweptAt,
    containers: sweep.containers.map((container) => ({ name: container.name, projectId: container.projectId, stats: toContainerStats(container.stats) })),
  };
}

export class ContainerStatsServiceImpl {
  private readonly shutdown = new AbortController();

  constructor(private readonly options: ContainerStatsServiceOptions) {}

  /** Ends every open watch with UNAVAILABLE (graceful shutdown). */
  endStreams(): void {
    this.shutdown.abort();
  }

  /** The managed, running container of a ref. */
  async resolve(ref: ContainerRef | undefined): Promise<ContainerView> {
    const given = ref?.ref;
    if (!given) throw new DockerError('invalid-argument', 'container is required (project_id or name)');
    const lookup = given.$case === 'projectId' ? { projectId: parseId(given.value, 'container.project_id') } : { name: parseContainerName(given.value) };
    const found = await this.options.docker.find(lookup);
    if (!found) throw new DockerError('not-found', 'projectId' in lookup ? `project ${lookup.projectId} has no container` : `there is no container named ${lookup.name}`);
    requireManaged(found, 'reading stats');
    if (found.state !== 'running') throw new DockerError('failed-precondition', `the container is ${found.state || 'not running'}: stats are only there while it runs`);
    return found;
  }

  addToServer(server: grpc.Server): void {
    const { logger, hub } = this.options;
    const { reply, stream } = grpcReply({ logger, knownFailures: dockerFailure, shutdown: this.shutdown.signal });
    const handlers: ContainerStatsServiceServer = {
      getContainerStats: (call, callback) =>
        reply(call, callback, async () => ({ stats: toContainerStats(await hub.sample((await this.resolve(call.request.container)).id)) }), 'GetContainerStats'),
      listContainerStats: (call, callback) =>
        reply(call, callback, async () => toListContainerStatsResponse(await this.options.sweeper.current()), 'ListContainerStats'),
      watchContainerStats: (call) =>
        stream(
          call,
          async (signal) => {
            const container = await this.resolve(call.request.container);
            if (signal.aborted) return;
            // The hub's watch ends by itself (onEnd) or when the client or the agent stops it.
            await new Promise<void>((resolve, reject) => {
              // Set before the watch starts: its onEnd may come at once.
              let stop = (): void => undefined;
              const onAbort = () => {
                stop();
                resolve();
              };
              signal.addEventListener('abort', onAbort, { once: true });
              stop = hub.watch(container.id, {
                onSample: (sample) => {
                  if (!signal.aborted) call.write({ stats: toContainerStats(sample) });
                },
                onEnd: (error) => {
                  signal.removeEventListener('abort', onAbort);
                  if (error === undefined) resolve();
                  else reject(error);
                },
              });
            });
          },
          'WatchContainerStats',
        ),
    };
    server.addService(ContainerStatsServiceService, handlers);
  }
}
