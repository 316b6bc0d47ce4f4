import type { ContainerInfo, ContainerInspectInfo, DockerEngine } from './engine.ts';
import { STOP_TIMEOUT_SECONDS } from './docker-driver.ts';
import { engineStatus } from './docker-errors.ts';

/**
 * What the route keeper needs from Docker, and no more: the managed containers with the
 * upstream each one's route should dial, removing a half-made one, and the engine's container
 * events. Implemented on the Docker engine (engine.ts) here so the keeper does not depend on the container
 * service's driver.
 */

/** One container carrying `devplein.managed=true`. */
export interface ManagedContainer {
  id: string;
  name: string;
  /** From `devplein.project-id`; 0 when the label is missing or not a number. */
  projectId: number;
  /** From `devplein.domain`; '' when missing. */
  domain: string;
  /** Docker's State: running, paused, exited, created, restarting, dead. */
  state: string;
  /** "address:port" of the published HTTP port; null when it is not published (not running). */
  upstream: string | null;
  createdAt: Date;
}

/** One container event of a managed container. */
export interface ManagedContainerEvent {
  /** Docker's Action: start, die, stop, destroy, unpause, restart, ... */
  action: string;
  containerId: string;
  /** The container's `devplein.domain` label ('' when missing). */
  domain: string;
}

export interface ManagedContainers {
  list(): Promise<ManagedContainer[]>;
  /**
   * Removes a container and its anonymous volumes if it is still only `created`; false when it
   * has started meanwhile (a listing is stale by the time it is acted on: a slow `docker start`
   * must never be answered with a removal) or is gone.
   */
  removeIfStillCreated(id: string): Promise<boolean>;
  /** When the container last started (Docker's State.StartedAt); undefined when it is gone or never ran. */
  startedAt(id: string): Promise<Date | undefined>;
  /** Stops a running container; never removes it. False when it was not running (or is gone). */
  stop(id: string): Promise<boolean>;
  /**
   * Calls `onEvent` for each event until the engine ends the stream (resolves) or `signal`
   * aborts (resolves); rejects when the stream cannot be opened or breaks.
   */
  watch(onEvent: (event: ManagedContainerEvent) => void, signal: AbortSignal): Promise<void>;
}

/** Events after which a container's route may have to change. */
export const ROUTE_EVENTS = ['start', 'unpause', 'restart', 'die', 'stop', 'destroy', 'kill', 'pause'] as const;

const managedFilter = 'devplein.managed=true';

/** Loopback or any-address binds are dialled at the configured publish address. */
function dialHost(ip: string | undefined, publishAddress: string): string {
  if (!ip || ip === '0.0.0.0' || ip === '::') return publishAddress;
  return ip.includes(':') ? `[${ip}]` : ip;
}

/** The upstream of an inspected container (its published ports as the list reports them). */
export function upstreamOfInspect(info: Pick<ContainerInspectInfo, 'NetworkSettings' | 'Config'>, defaults: { httpPort: number; publishAddress: string }): string | null {
  const Ports = Object.entries(info.NetworkSettings?.Ports ?? {}).flatMap(([key, bindings]) => {
    const [privatePort = '', type = 'tcp'] = key.split('/');
    return (bindings ?? []).map((binding) => ({ PrivatePort: Number(privatePort), PublicPort: Number(binding.HostPort) || 0, Type: type, IP: binding.HostIp }));
  });
  return upstreamOf({ Ports, Labels: info.Config?.Labels ?? {} }, defaults);
}

/**
 * The upstream of a listed container: the host side of its HTTP port (`devplein.http-port`,
 * else the configured default), IPv4 binding first.
 */
export function upstreamOf(info: Pick<ContainerInfo, 'Ports' | 'Labels'>, defaults: { httpPort: number; publishAddress: string }): string | null {
  const httpPort = Number(info.Labels['devplein.http-port']) || defaults.httpPort;
  const published = (info.Ports ?? []).filter((port) => port.PrivatePort === httpPort && port.Type === 'tcp' && port.PublicPort > 0);
  const chosen = published.find((port) => !port.IP?.includes(':')) ?? published[0];
  return chosen ? `${dialHost(chosen.IP, defaults.publishAddress)}:${chosen.PublicPort}` : null;
}

/**
 * ManagedContainers on the Docker engine. Only containers on the agent's own network count: a second
 * agent on the same engine (another test run, a staging agent) never touches this one's.
 */
export function engineManagedContainers(
  docker: DockerEngine,
  defaults: { httpPort: number; publishAddress: string; network: string },
): ManagedContainers {
  return {
    async list() {
      const containers = await docker.listContainers({ all: true, filters: { label: [managedFilter], network: [defaults.network] } });
      return containers.map((info) => ({
        id: info.Id,
        name: (info.Names[0] ?? info.Id).replace(/^\//, ''),
        projectId: Number(info.Labels['devplein.project-id']) || 0,
        domain: info.Labels['devplein.domain'] ?? '',
        state: info.State,
        upstream: upstreamOf(info, defaults),
        createdAt: new Date(info.Created * 1000),
      }));
    },

    async removeIfStillCreated(id) {
      const container = docker.container(id);
      const state = await container.inspect().then(
        (info) => info.State.Status,
        () => undefined,
      );
      if (state !== 'created') return false;
      try {
        // Not forced: a container that started in the meantime makes Docker refuse (409), and it stays.
        await container.remove({ force: false });
        return true;
      } catch (error) {
        const status = engineStatus(error);
        if (status === 409 || status === 404) return false;
        throw error;
      }
    },

    async startedAt(id) {
      const info = await docker
        .container(id)
        .inspect()
        .catch((error: unknown) => {
          if (engineStatus(error) === 404) return undefined;
          throw error;
        });
      const started = info ? new Date(info.State.StartedAt) : undefined;
      // Docker reports 0001-01-01T00:00:00Z for a container that never started.
      return started && started.getTime() > 0 ? started : undefined;
    },

    async stop(id) {
      try {
        await docker.container(id).stop(STOP_TIMEOUT_SECONDS);
        return true;
      } catch (error) {
        const status = engineStatus(error);
        // 304: not running; 404: gone.
        if (status === 304 || status === 404) return false;
        throw error;
      }
    },

    async watch(onEvent, signal) {
      const stream = await docker.events({ filters: { type: ['container'], label: [managedFilter], event: [...ROUTE_EVENTS] } });
      await new Promise<void>((resolve, reject) => {
        let pending = '';
        const abort = () => {
          stream.destroy();
          resolve();
        };
        if (signal.aborted) return abort();
        signal.addEventListener('abort', abort, { once: true });
        stream.on('data', (chunk: Buffer) => {
          pending += chunk.toString('utf8');
          const lines = pending.split('\n');
          pending = lines.pop() ?? '';
          for (const line of lines) {
            if (!line.trim()) continue;
            try {
              const event = JSON.parse(line) as { Action?: string; Actor?: { ID?: string; Attributes?: Record<string, string> } };
              onEvent({
                action: event.Action ?? '',
                containerId: event.Actor?.ID ?? '',
                domain: event.Actor?.Attributes?.['devplein.domain'] ?? '',
              });
            } catch {
              // A line that is not JSON is not an event: skip it.
            }
          }
        });
        stream.on('end', () => {
          signal.removeEventListener('abort', abort);
          resolve();
        });
        stream.on('error', (error: Error) => {
          signal.removeEventListener('abort', abort);
          if (signal.aborted) resolve();
          else reject(error);
        });
      });
    },
  };
}
