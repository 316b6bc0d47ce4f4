import { randomInt } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import {
  type AutoStop,
  AutoStopReason,
  type Container,
  ContainerAction,
  type ContainerEvent,
  type ContainerRef,
  ContainerServiceService,
  type ContainerServiceServer,
  type CreateContainerRequest,
  type LogLine,
  LogStream,
  type PullImageResponse,
} from '@devplein/proto/container';
import type { AgentConfig } from '../config.ts';
import type { ContainerEventView, ContainerView, ContainerWithUpstream, DockerDriver, LifecycleAction, NewContainer } from '../drivers/docker/docker-driver.ts';
import { LABELS } from '../drivers/docker/docker-driver.ts';
import { DockerError, SshPortTakenError } from '../drivers/docker/docker-errors.ts';
import { parseCapabilities } from '../drivers/docker/capabilities.ts';
import type { DecodedLogLine } from '../drivers/docker/log-decoder.ts';
import { parseContainerName, parseDomain, parseId, parseImageReference, parseProjectContainerName } from '../drivers/docker/references.ts';
import { isUnderSiteDomain } from '../drivers/proxy/caddy-route.ts';
import type { ProxyDriver } from '../drivers/proxy/proxy-driver.ts';
import type { AuthorizedKeyLine } from '../drivers/ssh/authorized-keys.ts';
import type { ProjectTurns } from '../projects/project-turns.ts';
import type { SshKeyWriter } from '../drivers/ssh/container-keys.ts';
import { removeLegacyKeys } from '../drivers/ssh/legacy-keys-folder.ts';
import type { AutoStopRecord } from '../jobs/site-activity.ts';
import { requireManaged, requireNotInfrastructure } from './container-access.ts';
import { dockerFailure } from './docker-status.ts';
import { grpcReply } from './grpc-reply.ts';
import { checkAuthorizedKey } from './ssh-access-service.ts';
import { SshPortPicker, type SshPortReservation } from './ssh-port-picker.ts';
import { StepTimes } from '../step-times.ts';

/** Lines GetContainerLogs returns when the caller asks for 0. */
const DEFAULT_TAIL = 500;
const MAX_TAIL = 10_000;

const actions: Partial<Record<ContainerAction, LifecycleAction>> = {
  [ContainerAction.CONTAINER_ACTION_START]: 'start',
  [ContainerAction.CONTAINER_ACTION_STOP]: 'stop',
  [ContainerAction.CONTAINER_ACTION_PAUSE]: 'pause',
  [ContainerAction.CONTAINER_ACTION_UNPAUSE]: 'unpause',
  [ContainerAction.CONTAINER_ACTION_RESTART]: 'restart',
};

/** Actions after which the container listens on a (possibly new) host port: its route follows. */
const routeActions = new Set<LifecycleAction>(['start', 'restart', 'unpause']);

/** WordPress logins as wp-cli takes them; never starting with '-' (it would read as an option). */
const wordpressLogin = /^[A-Za-z0-9_.@][A-Za-z0-9_.@ +-]{0,59}$/;

const passwordAlphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

/** A new WordPress password: 24 characters, about 140 bits of randomness, no shell specials. */
export function strongPassword(length = 24): string {
  let password = '';
  for (let i = 0; i < length; i += 1) password += passwordAlphabet[randomInt(passwordAlphabet.length)];
  return password;
}

const invalid = (message: string) => new DockerError('invalid-argument', message);

/**
 * The contract's AutoStop of a container in `state`; undefined without a record, and while it
 * runs or is paused (a started container's old auto-stop is history).
 */
function toAutoStop(record: AutoStopRecord | undefined, state: string): AutoStop | undefined {
  if (!record || state === 'running' || state === 'paused') return undefined;
  return {
    reason: AutoStopReason.AUTO_STOP_REASON_IDLE,
    stoppedAt: record.stoppedAt,
    lastActivityAt: record.lastActivityAt,
    idleAfterSeconds: Math.round(record.idleAfterMs / 1000),
  };
}

/** The contract's Container message of a view (with the agent's auto-stop of it, if any). */
export function toContainer(view: ContainerView, autoStop?: AutoStopRecord): Container {
  return {
    id: view.id,
    names: view.names,
    image: view.image,
    state: view.state,
    status: view.status,
    labels: view.labels,
    createdAt: view.createdAt,
    projectId: view.projectId,
    domain: view.domain,
    autoStop: toAutoStop(autoStop, view.state),
    oomKilled: view.exit?.oomKilled ?? false,
    exitCode: view.exit?.exitCode ?? 0,
  };
}

function toLogLine(line: DecodedLogLine): LogLine {
  return { stream: line.stream === 'stderr' ? LogStream.LOG_STREAM_STDERR : LogStream.LOG_STREAM_STDOUT, text: line.text, time: line.time };
}

function toEvent(event: ContainerEventView, autoStop: AutoStopRecord | undefined): ContainerEvent {
  return { ...event, autoStop: toAutoStop(autoStop, event.state) };
}

/** Checks a requested tail: negative or above MAX_TAIL is refused, 0 means `fallback`. */
function tailOf(value: number, fallback: number): number {
  const tail = Number(value);
  if (!Number.isInteger(tail) || tail < 0 || tail > MAX_TAIL) throw invalid(`tail must be 0 (the default) or a number up to ${MAX_TAIL}`);
  return tail === 0 ? fallback : tail;
}

export interface ContainerServiceOptions {
  docker: DockerDriver;
  proxy: ProxyDriver;
  /** Puts the (empty) authorized_keys into a new SSH container before its first start. */
  sshKeys: SshKeyWriter;
  config: Pick<AgentConfig, 'dataDir' | 'containers' | 'ssh' | 'siteDomain' | 'wordpress'>;
  logger: Logger;
  /** The idle auto-stop of a container, reported with it (absent when the feature is off). */
  autoStopOf?: (containerId: string) => AutoStopRecord | undefined;
  /** Called after a project's managed container was removed (the git deploy's checkout goes). */
  afterProjectRemoved?: (projectId: number) => Promise<void>;
  /** Whether a host port is free for a new SSH container (ssh-port-picker's portIsFree by default). */
  sshPortIsFree?: (host: string, port: number) => Promise<boolean>;
  /** The agent's one owner of each project's turn (shared with the deploy and SSH services). */
  turns: ProjectTurns;
}

/**
 * ContainerService: the students' project containers on the Docker engine. Validates every
 * request, talks to the engine through the DockerDriver, and keeps the proxy route of a project
 * in step with its container. The proxy failing never undoes a container change: the route
 * keeper (jobs/route-keeper.ts) repairs routes; it is logged.
 */
export class ContainerServiceImpl {
  /** Only the SSH port choice is serialised across projects. */
  private readonly sshPorts: SshPortPicker;
  /** Aborted at shutdown: every open stream then ends with UNAVAILABLE. */
  private readonly shutdown = new AbortController();

  constructor(private readonly options: ContainerServiceOptions) {
    this.sshPorts = new SshPortPicker({
      range: options.config.ssh.portRange,
      bindAddress: options.config.ssh.bindAddress,
      usedPorts: () => options.docker.usedSshPorts(),
      isFree: options.sshPortIsFree,
    });
  }

  /**
   * Ends every open stream (event watches, log follows, pulls) with UNAVAILABLE 'the agent is
   * shutting down', so a graceful server shutdown is not held up by streams that never end by
   * themselves, and clients reconnect to the next agent process. Unary calls are not touched.
   */
  endStreams(): void {
    this.shutdown.abort();
  }

  private async resolve(ref: ContainerRef | undefined): Promise<ContainerView> {
    const given = ref?.ref;
    if (!given) throw invalid('container is required (project_id or name)');
    const lookup = given.$case === 'projectId' ? { projectId: parseId(given.value, 'container.project_id') } : { name: parseContainerName(given.value) };
    const found = await this.options.docker.find(lookup);
    if (!found) {
      throw new DockerError('not-found', 'projectId' in lookup ? `project ${lookup.projectId} has no container` : `there is no container named ${lookup.name}`);
    }
    return found;
  }

  /**
   * Points the project's route at the container's current host port (`known`: already looked
   * up; asked of the engine when not known or none was seen); failures are logged only.
   */
  private async refreshRoute(view: ContainerView, logger: Logger, known?: string | null): Promise<void> {
    if (!view.domain || view.labels[LABELS.managed] !== 'true') return;
    // A container an earlier agent made for another domain gets no route (the route keeper agrees).
    if (!isUnderSiteDomain(view.domain, this.options.config.siteDomain)) return;
    try {
      const upstream = known ?? (await this.options.docker.upstream(view.id));
      if (!upstream) return;
      await this.options.proxy.upsertRoute({ domain: view.domain, upstream, projectId: view.projectId });
    } catch (error) {
      logger.warn({ err: error, domain: view.domain, containerId: view.id }, 'could not update the proxy route; the route keeper will retry');
    }
  }

  async createContainer(request: CreateContainerRequest, logger: Logger): Promise<{ container: ContainerView; created: boolean; authorizedKeysWritten: boolean }> {
    const { config, docker } = this.options;
    const projectId = parseId(request.projectId, 'project_id');
    const name = parseProjectContainerName(request.name);
    const domain = parseDomain(request.domain);
    if (!isUnderSiteDomain(domain, config.siteDomain)) throw invalid(`domain ${domain} is not under this dev server's site domain ${config.siteDomain}`);
    const image = parseImageReference(request.image);
    const ownerUserId = parseId(request.ownerUserId, 'owner_user_id');
    request.memberUserIds.forEach((id, index) => parseId(id, `member_user_ids[${index}]`));
    // Refused above the agent's maximum (AGENT_CONTAINER_MAX_*), never cut: the caller learns
    // that it asked for more than this dev server gives one project.
    const limit = (value: number | undefined, fallback: number, max: number, field: string): number => {
      const number = Number(value ?? 0);
      if (!Number.isSafeInteger(number) || number < 0) throw invalid(`limits.${field} must be 0 (the default) or a positive number`);
      if (number > max) throw invalid(`limits.${field} must be at most ${max} on this dev server`);
      return number || fallback;
    };
    const limits = {
      memoryBytes: limit(request.limits?.memoryBytes, config.containers.memoryBytes, config.containers.maxMemoryBytes, 'memory_bytes'),
      nanoCpus: limit(request.limits?.nanoCpus, config.containers.nanoCpus, config.containers.maxNanoCpus, 'nano_cpus'),
      pids: limit(request.limits?.pids, config.containers.pids, config.containers.maxPids, 'pids'),
    };
    const capabilities = parseCapabilities(request.capabilities?.add);
    const keys = request.ssh ? this.keysOfCreate(request, logger) : undefined;

    const steps = new StepTimes();
    await steps.time('network', () => docker.ensureNetwork());
    // In the project's turn (projects/project-turns.ts): a second create finds the first's container
    // (one container per project); creates of different projects run side by side.
    return this.options.turns.change(projectId, 'create', async () => {
      const existing = await steps.time('find', () => docker.find({ projectId }));
      if (existing) return { container: existing, created: false, authorizedKeysWritten: false };
      // Only this project waits for a slow pull: other projects' creates go on.
      let imageId = await steps.time('image', () => docker.imageId(image));
      if (imageId === undefined) {
        logger.info({ image, projectId }, 'pulling the image of a new container');
        await docker.pull(image, () => undefined);
        imageId = await docker.imageId(image);
        if (imageId === undefined) throw new DockerError('not-found', `image ${image} is not there after its pull`);
      }
      // SSH: the members' keys (none: an empty file) as the image's student user's
      // authorized_keys before the first start, so no key the image may carry ever works.
      const imageOfKeys = imageId;
      const prepare = keys
        ? (id: string) => steps.time('keys', () => this.options.sshKeys.writeBeforeFirstStart({ id, name, imageId: imageOfKeys }, keys.lines))
        : undefined;
      const spec = { projectId, name, domain, image, ownerUserId, ssh: request.ssh, wordpress: request.wordpress, limits, capabilities };
      const created = request.ssh
        ? await this.createWithSshPort(spec, prepare, steps, logger)
        : await docker.create({ ...spec, sshPort: undefined }, prepare, steps);
      const { upstream, ...container } = created;
      await steps.time('route', () => this.refreshRoute(container, logger, upstream));
      logger.info({ projectId, name, containerId: container.id, image, capabilities, steps }, 'created a project container');
      return { container, created: true, authorizedKeysWritten: keys?.asked === true };
    });
  }

  /**
   * A create with an SSH port: the port is held until the container carries it in its label (or the
   * create failed). Another program may take the chosen port between the check and the start (the
   * engine cannot bind it): then the next free port, three tries in all, the taken ones held
   * meanwhile so the picker does not hand them out again.
   */
  private async createWithSshPort(
    spec: Omit<NewContainer, 'sshPort'>,
    prepare: ((containerId: string) => Promise<unknown>) | undefined,
    steps: StepTimes,
    logger: Logger,
  ): Promise<ContainerWithUpstream> {
    const held: SshPortReservation[] = [];
    try {
      for (let attempt = 1; ; attempt += 1) {
        const port = await steps.time('sshPort', () => this.sshPorts.reserve());
        held.push(port);
        try {
          return await this.options.docker.create({ ...spec, sshPort: port.port }, prepare, steps);
        } catch (error) {
          if (!(error instanceof SshPortTakenError) || attempt === 3) throw error;
          logger.warn({ port: port.port, name: spec.name }, 'the SSH port was taken before the container started; trying the next one');
        }
      }
    } finally {
      for (const port of held) port.release();
    }
  }

  /**
   * The keys a create writes: the request's when every one is a key SetAuthorizedKeys takes
   * (`asked`), else none (the caller then sets them with SetAuthorizedKeys and learns why not).
   */
  private keysOfCreate(request: CreateContainerRequest, logger: Logger): { lines: AuthorizedKeyLine[]; asked: boolean } {
    try {
      return { lines: request.authorizedKeys.map(checkAuthorizedKey), asked: true };
    } catch (error) {
      logger.warn({ err: error, projectId: request.projectId }, 'a key of the create is refused: the container starts with an empty authorized_keys');
      return { lines: [], asked: false };
    }
  }

  async changeState(ref: ContainerRef | undefined, action: ContainerAction, logger: Logger): Promise<ContainerView> {
    const lifecycle = actions[action];
    if (!lifecycle) throw invalid(`unknown action ${String(action)}: expected start, stop, pause, unpause or restart`);
    const container = requireNotInfrastructure(await this.resolve(ref), lifecycle);
    return this.inTurn(container, lifecycle === 'start' || lifecycle === 'unpause' ? 'start' : 'interrupt', async () => {
      const { upstream, ...after } = await this.options.docker.act(container.id, lifecycle);
      if (routeActions.has(lifecycle)) await this.refreshRoute(after, logger, upstream);
      return after;
    });
  }

  /** Work on a project's container in the project's turn; a container of no project (an admin's own) has none. */
  private inTurn<T>(container: ContainerView, change: 'start' | 'interrupt' | 'remove', work: () => Promise<T>): Promise<T> {
    return container.projectId > 0 && container.labels[LABELS.managed] === 'true' ? this.options.turns.change(container.projectId, change, work) : work();
  }

  async removeContainer(ref: ContainerRef | undefined, logger: Logger): Promise<boolean> {
    let container: ContainerView;
    try {
      container = await this.resolve(ref);
    } catch (error) {
      if (error instanceof DockerError && error.kind === 'not-found') return false;
      throw error;
    }
    requireNotInfrastructure(container, 'remove');
    // The route and the checkout go in the same turn: a deploy waiting for it then finds no container.
    return this.inTurn(container, 'remove', () => this.removeNow(container, logger));
  }

  private async removeNow(container: ContainerView, logger: Logger): Promise<boolean> {
    const removed = await this.options.docker.remove(container.id);
    if (container.labels[LABELS.managed] === 'true') {
      if (container.domain) {
        await this.options.proxy.removeRoute(container.domain).catch((error: unknown) => {
          logger.warn({ err: error, domain: container.domain }, 'could not remove the proxy route; the route keeper will retry');
        });
      }
      // Containers of earlier agent versions had a keys folder on the host (legacy-keys-folder.ts).
      if (container.projectId > 0) await removeLegacyKeys(this.options.config.dataDir, container.projectId);
      if (container.projectId > 0 && removed) {
        await this.options.afterProjectRemoved?.(container.projectId).catch((error: unknown) => {
          logger.warn({ err: error, projectId: container.projectId }, 'could not remove the project’s git checkout');
        });
      }
    }
    if (removed) logger.info({ containerId: container.id, name: container.names[0], projectId: container.projectId }, 'removed a container');
    return removed;
  }

  async listContainers(projectIds: number[], includeUnmanaged: boolean): Promise<ContainerView[]> {
    const ids = projectIds.map((id, index) => parseId(id, `project_ids[${index}]`));
    return this.options.docker.list({ projectIds: ids, includeUnmanaged });
  }

  async getLogs(ref: ContainerRef | undefined, tailInput: number): Promise<DecodedLogLine[]> {
    const tail = tailOf(tailInput, DEFAULT_TAIL);
    const container = requireManaged(await this.resolve(ref), 'reading logs');
    return this.options.docker.logs(container.id, tail);
  }

  async resetWordpressPassword(ref: ContainerRef | undefined, usernameInput: string, logger: Logger): Promise<{ username: string; password: string }> {
    const given = usernameInput.trim();
    if (given && !wordpressLogin.test(given)) throw invalid('username is not a WordPress login');
    const container = requireManaged(await this.resolve(ref), 'a WordPress password reset');
    if (container.labels[LABELS.wordpress] !== 'true') {
      throw new DockerError('failed-precondition', `container ${container.names[0]?.replace(/^\//, '') ?? container.id} is not a WordPress container`);
    }
    if (container.state !== 'running') throw new DockerError('failed-precondition', `the container is ${container.state || 'not running'}; start it first`);
    const { docker, config } = this.options;
    // As the web server's user, with a time limit and capped output: the container is the student's.
    const asWebUser = { user: config.wordpress.user, timeoutMs: config.wordpress.timeoutMs };
    let username = given;
    if (!username) {
      const listed = await docker.exec(container.id, ['wp', 'user', 'list', '--role=administrator', '--field=user_login'], asWebUser);
      if (listed.exitCode !== 0) {
        logger.error({ exitCode: listed.exitCode, stderr: listed.stderr.slice(0, 2000) }, 'wp user list failed');
        throw new Error('wp user list failed');
      }
      username = listed.stdout.split('\n').map((line) => line.trim()).find(Boolean) ?? '';
      if (!username) throw new DockerError('failed-precondition', 'this WordPress site has no administrator');
    }
    const password = strongPassword();
    const updated = await docker.exec(container.id, ['wp', 'user', 'update', username, `--user_pass=${password}`, '--skip-email'], asWebUser);
    if (updated.exitCode !== 0) {
      if (/invalid user|not found|doesn.t exist/i.test(updated.stderr + updated.stdout)) throw new DockerError('not-found', `WordPress user ${username} does not exist`);
      logger.error({ exitCode: updated.exitCode, stderr: updated.stderr.slice(0, 2000) }, 'wp user update failed');
      throw new Error('wp user update failed');
    }
    logger.info({ containerId: container.id, username }, 'reset a WordPress password');
    return { username, password };
  }

  /** The contract's Container of a view, with its auto-stop. */
  private present(view: ContainerView): Container {
    return toContainer(view, this.options.autoStopOf?.(view.id));
  }

  addToServer(server: grpc.Server): void {
    const { logger, docker } = this.options;
    const { reply, stream } = grpcReply({ logger, knownFailures: dockerFailure, shutdown: this.shutdown.signal });

    const handlers: ContainerServiceServer = {
      createContainer: (call, callback) =>
        reply(
          call,
          callback,
          async (log) => {
            const { container, created, authorizedKeysWritten } = await this.createContainer(call.request, log);
            return { container: this.present(container), created, authorizedKeysWritten };
          },
          'CreateContainer',
        ),
      changeContainerState: (call, callback) =>
        reply(call, callback, async (log) => ({ container: this.present(await this.changeState(call.request.container, call.request.action, log)) }), 'ChangeContainerState'),
      removeContainer: (call, callback) => reply(call, callback, async (log) => ({ removed: await this.removeContainer(call.request.container, log) }), 'RemoveContainer'),
      listContainers: (call, callback) =>
        reply(
          call,
          callback,
          async () => ({ containers: (await this.listContainers(call.request.projectIds, call.request.includeUnmanaged)).map((view) => this.present(view)) }),
          'ListContainers',
        ),
      getContainerLogs: (call, callback) =>
        reply(call, callback, async () => ({ lines: (await this.getLogs(call.request.container, call.request.tail)).map(toLogLine) }), 'GetContainerLogs'),
      followContainerLogs: (call) =>
        stream(
          call,
          async (signal) => {
            const tail = tailOf(call.request.tail, 0);
            const container = requireManaged(await this.resolve(call.request.container), 'following logs');
            await docker.followLogs(container.id, tail, (line) => call.write({ line: toLogLine(line) }), signal);
          },
          'FollowContainerLogs',
        ),
      pullImage: (call) =>
        stream(
          call,
          async (signal, log) => {
            const image = parseImageReference(call.request.image);
            log.info({ image, projectId: call.request.projectId }, 'pulling an image');
            await docker.pull(image, (event) => call.write(event satisfies PullImageResponse), signal);
          },
          'PullImage',
        ),
      watchContainerEvents: (call) =>
        stream(
          call,
          async (signal) => {
            const projectIds = call.request.projectIds.map((id, index) => parseId(id, `project_ids[${index}]`));
            const filter = { projectIds, includeUnmanaged: call.request.includeUnmanaged, since: call.request.since };
            await docker.watchEvents(filter, (event) => call.write({ event: toEvent(event, this.options.autoStopOf?.(event.containerId)) }), signal);
            // The engine ended the stream (it stopped or restarted): the client should reconnect.
            if (!signal.aborted) throw new DockerError('unavailable', 'the Docker engine ended the event stream');
          },
          'WatchContainerEvents',
        ),
      execWordpressPasswordReset: (call, callback) =>
        reply(call, callback, (log) => this.resetWordpressPassword(call.request.container, call.request.username, log), 'ExecWordpressPasswordReset'),
    };
    server.addService(ContainerServiceService, handlers);
  }
}
