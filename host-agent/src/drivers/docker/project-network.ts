import type { Logger } from 'pino';
import { LABELS } from './docker-driver.ts';
import { DockerError, engineStatus, translateDockerError } from './docker-errors.ts';
import type { DockerEngine, NetworkCreateOptions, NetworkInspectInfo } from './engine.ts';
import { type ContainerFirewall, ContainerFirewallError } from './container-firewall.ts';

/** Docker's bridge option that turns inter-container traffic on the bridge off. */
export const ICC_OPTION = 'com.docker.network.bridge.enable_icc';

/** Options of the project network: a bridge whose containers cannot talk to each other. */
export function networkCreateOptions(name: string): NetworkCreateOptions {
  return { Name: name, Driver: 'bridge', CheckDuplicate: true, Labels: { [LABELS.managed]: 'true' }, Options: { [ICC_OPTION]: 'false' } };
}

/** Whether a network already keeps its containers apart (made with enable_icc=false). */
export function isIsolatedNetwork(info: Pick<NetworkInspectInfo, 'Options'>): boolean {
  return info.Options?.[ICC_OPTION] === 'false';
}

/** The host interface of a bridge network: Docker's br-{first 12 of the id} unless named. */
export function bridgeOf(info: Pick<NetworkInspectInfo, 'Id' | 'Options'>): string {
  return info.Options?.['com.docker.network.bridge.name'] || `br-${info.Id.slice(0, 12)}`;
}


const managedLabel = `${LABELS.managed}=true`;

export interface ProjectNetworkOptions {
  /** Unset: no host firewall is touched (unit tests, a private engine in tests). */
  firewall?: ContainerFirewall | undefined;
  logger?: Pick<Logger, 'info' | 'warn' | 'error'> | undefined;
  /**
   * Called after containers were moved to the recreated network: their published ports came
   * back on other host ports, so the proxy routes must be brought in line now (route keeper).
   */
  onContainersMoved?: (() => void) | undefined;
}

/**
 * The bridge network every project container of this agent runs on (AGENT_CONTAINER_NETWORK):
 * made isolated (no inter-container traffic), an older one migrated, and the host firewall of
 * its bridge set. Made once per agent; made again when it was removed behind the agent's back.
 */
export class ProjectNetwork {
  private ready: Promise<void> | undefined;

  constructor(
    private readonly engine: DockerEngine,
    readonly name: string,
    private readonly options: ProjectNetworkOptions = {},
  ) {}

  /** The network is gone (a create said so): the next ensure makes it again. */
  forget(): void {
    this.ready = undefined;
  }

  /** Runs an engine call, translating its failure (see translateDockerError). */
  private async call<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw translateDockerError(error, what);
    }
  }

  /** Makes the network when it is missing (isolated, with its firewall), once; a failure is tried again at the next call. */
  ensure(): Promise<void> {
    this.ready ??= this.createNetworkIfMissing().catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  /** The project network by exact name, or undefined. */
  async find(): Promise<NetworkInspectInfo | undefined> {
    const name = this.name;
    const networks = await this.call('listing networks', () => this.engine.listNetworks({ name: [name] }));
    const found = networks.find((network) => network.Name === name);
    if (!found) return undefined;
    return this.call(`inspecting network ${name}`, () => this.engine.network(found.Id).inspect());
  }

  private async createNetworkIfMissing(): Promise<void> {
    const name = this.name;
    let info = await this.find();
    let moved: string[] = [];
    if (info && !isIsolatedNetwork(info)) {
      moved = await this.migrateNetwork(info);
      info = undefined;
    }
    if (!info) {
      try {
        await this.engine.createNetwork(networkCreateOptions(name));
      } catch (error) {
        // Someone else made it in between: fine.
        if (engineStatus(error) !== 409) throw translateDockerError(error, `creating network ${name}`);
      }
      info = await this.find();
      if (!info) throw new DockerError('unavailable', `network ${name} vanished right after it was created`);
    }
    await this.reattachContainers(info, moved);
    await this.applyFirewall(info);
  }

  /**
   * A network made before isolation (inter-container traffic on) cannot be changed in place:
   * Docker fixes a bridge's options at creation. Its containers are disconnected (a running one
   * loses its network for a moment, its processes keep running), the network is made again with
   * enable_icc=false under the same name, and reattachContainers connects them again. Returns
   * the ids of the containers it disconnected (managed or not: an admin's own container on
   * the network comes back too).
   */
  private async migrateNetwork(old: NetworkInspectInfo): Promise<string[]> {
    const name = this.name;
    const attached = await this.call('listing containers', () => this.engine.listContainers({ all: true, filters: { network: [old.Id] } }));
    this.options.logger?.warn(
      { network: name, containers: attached.length },
      'the project network lets containers talk to each other (inter-container traffic on, made by an older agent): recreating it with inter-container traffic off and moving its containers',
    );
    const network = this.engine.network(old.Id);
    for (const container of attached) {
      await this.call(`disconnecting ${container.Id.slice(0, 12)} from ${name}`, () => network.disconnect(container.Id, { force: true })).catch((error: unknown) => {
        if (!(error instanceof DockerError && error.kind === 'not-found')) throw error;
      });
    }
    await this.call(`removing network ${name}`, () => network.remove()).catch((error: unknown) => {
      if (!(error instanceof DockerError && error.kind === 'not-found')) throw error;
    });
    return attached.map((container) => container.Id);
  }

  /**
   * Connects the managed containers made for this network (HostConfig.NetworkMode) that are on
   * no network: the ones a migration moved, also when an earlier migration stopped half-way.
   * Docker publishes a running one's ports again on connect, on new ephemeral host ports.
   */
  private async reattachContainers(info: NetworkInspectInfo, moved: readonly string[]): Promise<void> {
    const name = this.name;
    const managed = await this.call('listing containers', () => this.engine.listContainers({ all: true, filters: { label: [managedLabel] } }));
    const orphans = managed
      .filter((container) => container.HostConfig?.NetworkMode === name && Object.keys(container.NetworkSettings?.Networks ?? {}).length === 0)
      .map((container) => container.Id);
    const ids = [...new Set([...moved, ...orphans])];
    for (const id of ids) {
      try {
        await this.call(`connecting ${id.slice(0, 12)} to ${name}`, () => this.engine.network(info.Id).connect(id));
        this.options.logger?.info({ network: name, containerId: id }, 'moved a container to the isolated project network');
      } catch (error) {
        // One that cannot come back (removed meanwhile) must not keep the others off the network.
        this.options.logger?.error({ err: error, network: name, containerId: id }, 'could not connect a container to the isolated project network');
      }
    }
    if (ids.length > 0) this.options.onContainersMoved?.();
  }

  /** The host firewall of the network's bridge; a failure stops container creation (fail closed). */
  private async applyFirewall(info: NetworkInspectInfo): Promise<void> {
    const firewall = this.options.firewall;
    if (!firewall) return;
    const bridge = bridgeOf(info);
    try {
      await firewall.apply(bridge);
    } catch (error) {
      const message = error instanceof ContainerFirewallError ? error.message : String(error);
      this.options.logger?.error(
        { err: error, network: this.name, bridge },
        'CANNOT ISOLATE STUDENT CONTAINERS: the iptables rules that keep them away from the host and each other cannot be set (needs iptables and CAP_NET_ADMIN); no container is created until this works (AGENT_CONTAINER_FIREWALL=off runs without them)',
      );
      throw new DockerError('failed-precondition', `the container firewall cannot be set (AGENT_CONTAINER_FIREWALL=iptables): ${message}`, { cause: error });
    }
  }

  /**
   * At start-up: an existing network (with containers to protect) is migrated and gets its
   * firewall now; a missing one is made at the first create. Logs what is wrong; never throws.
   */
  async checkAtStart(): Promise<void> {
    const logger = this.options.logger;
    if (this.options.firewall?.mode === 'off') {
      logger?.warn({ network: this.name }, 'container firewall off (AGENT_CONTAINER_FIREWALL=off): student containers can reach every service on this host');
    }
    try {
      if (!(await this.find())) {
        logger?.info({ network: this.name }, 'project network not there yet; it is made, isolated, at the first container create');
        return;
      }
      await this.ensure();
      const pruned = await this.options.firewall?.prune().catch(() => []);
      if (pruned?.length) logger?.info({ chains: pruned }, 'removed the container firewall chains of networks that no longer exist');
      const info = await this.find();
      logger?.info(
        { network: this.name, bridge: info ? bridgeOf(info) : undefined, firewall: this.options.firewall?.mode ?? 'none' },
        this.options.firewall?.mode === 'iptables' ? 'project network isolated (inter-container traffic off, host firewall set)' : 'project network ready',
      );
    } catch (error) {
      // The firewall failure was logged where it happened; the engine may simply not run yet.
      if (!(error instanceof DockerError && error.kind === 'failed-precondition')) {
        logger?.warn({ err: error, network: this.name }, 'could not prepare the project network at start-up; retried at the first container create');
      }
    }
  }
}
