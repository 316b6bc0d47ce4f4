import * as grpc from '@grpc/grpc-js';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContainerAction } from '@devplein/proto/container';
import type { ContainerView, DockerDriver, LifecycleAction, NewContainer } from '../drivers/docker/docker-driver.ts';
import { DockerError, SshPortTakenError } from '../drivers/docker/docker-errors.ts';
import { type ProxyDriver, type ProxyRoute, ProxyUnavailableError } from '../drivers/proxy/proxy-driver.ts';
import type { AuthorizedKeyLine } from '../drivers/ssh/authorized-keys.ts';
import type { NewContainerRef, SshKeyWriter } from '../drivers/ssh/container-keys.ts';
import { ProjectTurns } from '../projects/project-turns.ts';
import { ContainerServiceImpl, strongPassword } from './container-service.ts';
import { dockerFailure } from './docker-status.ts';

/** An in-memory engine: enough of DockerDriver for the service's orchestration. */
class MemoryDocker implements Partial<DockerDriver> {
  containers = new Map<string, ContainerView>();
  created: NewContainer[] = [];
  private next = 1;

  ensureNetwork = async () => undefined;
  imageId = async (image: string) => `sha256:${image}`;
  usedSshPorts = async () => new Set([...this.containers.values()].map((view) => Number(view.labels['devplein.ssh-port'])).filter(Boolean));
  upstream = async (id: string) => (this.containers.get(id)?.state === 'running' ? `127.0.0.1:${40_000 + Number(id)}` : null);

  async find(lookup: { projectId: number } | { name: string }) {
    return [...this.containers.values()].find((view) => ('projectId' in lookup ? view.projectId === lookup.projectId : view.names.includes(`/${lookup.name}`)));
  }

  /** SSH ports another program takes between the port check and the start (the start then fails). */
  takenAtStart = new Set<number>();

  async create(spec: NewContainer, prepare?: (containerId: string) => Promise<unknown>) {
    // Yield like the real engine does, so concurrent creates interleave.
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (spec.sshPort !== undefined && this.takenAtStart.has(spec.sshPort)) {
      // Like the real driver: the half-made container is removed, the port named.
      throw new SshPortTakenError(spec.sshPort, `starting container ${spec.name}: Bind for 127.0.0.1:${spec.sshPort} failed: port is already allocated`);
    }
    if ([...this.containers.values()].some((view) => view.names.includes(`/${spec.name}`))) throw new DockerError('failed-precondition', 'name taken');
    this.created.push(spec);
    const id = String(this.next++);
    // Like the real driver: prepared while created, started only after that.
    await prepare?.(id);
    const labels: Record<string, string> = { 'devplein.managed': 'true', 'devplein.project-id': String(spec.projectId), 'devplein.domain': spec.domain };
    if (spec.sshPort) labels['devplein.ssh-port'] = String(spec.sshPort);
    const view: ContainerView = { id, names: [`/${spec.name}`], image: spec.image, state: 'running', status: 'Up 1 second', labels, createdAt: new Date(), projectId: spec.projectId, domain: spec.domain };
    this.containers.set(id, view);
    return { ...view, upstream: `127.0.0.1:${40_000 + Number(id)}` };
  }

  async act(id: string, action: LifecycleAction) {
    const view = this.containers.get(id);
    if (!view) throw new DockerError('not-found', 'gone');
    if (action === 'pause' && view.state !== 'running') throw new DockerError('failed-precondition', `Container ${id} is not running`);
    view.state = { start: 'running', stop: 'exited', pause: 'paused', unpause: 'running', restart: 'running' }[action];
    return { ...view, upstream: await this.upstream(id) };
  }

  async remove(id: string) {
    return this.containers.delete(id);
  }

  execs: Array<{ id: string; command: string[] }> = [];
  async exec(id: string, command: string[]) {
    this.execs.push({ id, command });
    return { exitCode: 0, stdout: 'admin\n', stderr: '' };
  }

  logReads: string[] = [];
  async logs(id: string) {
    this.logReads.push(id);
    return [];
  }

  /** A container the agent did not make (no devplein.managed label), as `docker run` leaves it. */
  addUnmanaged(name: string, labels: Record<string, string> = {}): ContainerView {
    const id = String(this.next++);
    const view: ContainerView = { id, names: [`/${name}`], image: 'caddy:2', state: 'running', status: 'Up 1 hour', labels, createdAt: new Date(), projectId: 0, domain: '' };
    this.containers.set(id, view);
    return view;
  }
}

/** Records which container got which keys, and whether it was running by then. */
class RecordingKeys implements SshKeyWriter {
  writes: Array<{ containerId: string; imageId: string; keys: AuthorizedKeyLine[]; startedBefore: boolean }> = [];
  constructor(private readonly docker: MemoryDocker) {}
  async writeBeforeFirstStart(container: NewContainerRef, keys: AuthorizedKeyLine[]) {
    this.writes.push({ containerId: container.id, imageId: container.imageId, keys, startedBefore: this.docker.containers.has(container.id) });
  }
}

class RecordingProxy implements ProxyDriver {
  routes = new Map<string, ProxyRoute>();
  failing = false;
  async ensureServer() {}
  async upsertRoute(route: ProxyRoute) {
    if (this.failing) throw new ProxyUnavailableError('Caddy does not answer');
    const created = !this.routes.has(route.domain);
    this.routes.set(route.domain, route);
    return { created };
  }
  async removeRoute(domain: string) {
    if (this.failing) throw new ProxyUnavailableError('Caddy does not answer');
    return this.routes.delete(domain);
  }
  async listRoutes() {
    return [...this.routes.values()];
  }
}

const logger = pino({ level: 'silent' });
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-container-service-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

function service(): { impl: ContainerServiceImpl; docker: MemoryDocker; proxy: RecordingProxy; sshKeys: RecordingKeys } {
  const docker = new MemoryDocker();
  const proxy = new RecordingProxy();
  const sshKeys = new RecordingKeys(docker);
  const config = {
    dataDir,
    containers: {
      network: 'n',
      memoryBytes: 512 * 1024 * 1024,
      nanoCpus: 1e9,
      pids: 256,
      maxMemoryBytes: 2048 * 1024 * 1024,
      maxNanoCpus: 2e9,
      maxPids: 1024,
      httpPort: 80,
      publishAddress: '127.0.0.1',
      firewall: 'off' as const,
      allowedHostPorts: [],
      diskLimitBytes: undefined,
    },
    siteDomain: 'dev.test',
    ssh: { host: 'localhost', bindAddress: '127.0.0.1', portRange: { first: 45_100, last: 45_140 } },
    wordpress: { user: 'www-data', timeoutMs: 30_000 },
  };
  // The host's own ports are not part of these tests (another process may hold one of 45100-45140 on a busy machine): the memory engine decides what is taken.
  const sshPortIsFree = async () => true;
  return { impl: new ContainerServiceImpl({ docker: docker as unknown as DockerDriver, proxy, sshKeys, config, logger, sshPortIsFree, turns: new ProjectTurns() }), docker, proxy, sshKeys };
}

const request = (projectId: number, name: string, extra: Record<string, unknown> = {}) => ({
  projectId,
  name,
  domain: `${name}.dev.test`,
  image: 'devplein/php:8.3',
  ownerUserId: 1,
  memberUserIds: [1],
  ssh: false,
  wordpress: false,
  limits: undefined,
  capabilities: undefined,
  authorizedKeys: [],
  ...extra,
});

describe('ContainerServiceImpl', () => {
  it('creates once per project, also when two creates race, and routes the domain', async () => {
    const { impl, docker, proxy } = service();
    const [a, b] = await Promise.all([impl.createContainer(request(1, 'blog'), logger), impl.createContainer(request(1, 'blog'), logger)]);
    expect([a.created, b.created].sort()).toEqual([false, true]);
    expect(a.container.id).toBe(b.container.id);
    expect(docker.created).toHaveLength(1);
    expect(docker.created[0]?.limits).toEqual({ memoryBytes: 512 * 1024 * 1024, nanoCpus: 1e9, pids: 256 });
    expect(proxy.routes.get('blog.dev.test')).toEqual({ domain: 'blog.dev.test', upstream: '127.0.0.1:40001', projectId: 1 });
  });

  it('keeps the container when the proxy fails (the route keeper repairs the route later)', async () => {
    const { impl, docker, proxy } = service();
    proxy.failing = true;
    const { created, container } = await impl.createContainer(request(2, 'shop'), logger);
    expect(created).toBe(true);
    expect(docker.containers.has(container.id)).toBe(true);
    expect(await impl.removeContainer({ ref: { $case: 'projectId', value: 2 } }, logger)).toBe(true);
    expect(docker.containers.size).toBe(0);
  });

  it('gives SSH containers distinct ports from the range and an empty authorized_keys before their first start', async () => {
    const { impl, docker, sshKeys } = service();
    const one = await impl.createContainer(request(3, 'one', { ssh: true }), logger);
    const two = await impl.createContainer(request(4, 'two', { ssh: true }), logger);
    await impl.createContainer(request(5, 'three'), logger);
    const ports = docker.created.map((spec) => spec.sshPort);
    expect(new Set(ports.slice(0, 2)).size).toBe(2);
    expect(ports[2]).toBeUndefined();
    expect(sshKeys.writes).toEqual([
      { containerId: one.container.id, imageId: 'sha256:devplein/php:8.3', keys: [], startedBefore: false },
      { containerId: two.container.id, imageId: 'sha256:devplein/php:8.3', keys: [], startedBefore: false },
    ]);
    expect([one.authorizedKeysWritten, two.authorizedKeysWritten]).toEqual([true, true]);
  });

  it('takes the next SSH port when another program took the chosen one before the start', async () => {
    const { impl, docker } = service();
    docker.takenAtStart = new Set([45_100, 45_101]);
    const made = await impl.createContainer(request(6, 'raced', { ssh: true }), logger);
    expect(made.created).toBe(true);
    expect(docker.created.map((spec) => spec.sshPort)).toEqual([45_102]);
    expect(made.container.labels['devplein.ssh-port']).toBe('45102');
  });

  it('gives up after three taken SSH ports with an honest UNAVAILABLE', async () => {
    const { impl, docker } = service();
    docker.takenAtStart = new Set([45_100, 45_101, 45_102, 45_103]);
    await expect(impl.createContainer(request(7, 'unlucky', { ssh: true }), logger)).rejects.toMatchObject({ kind: 'unavailable' });
    expect(docker.containers.size).toBe(0);
  });

  it('writes the members’ keys of the create before the first start, and says so', async () => {
    const { impl, sshKeys } = service();
    const publicKey = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBrLGJfORkQZ1tLDoGNGZJRh+2Tb1qPmF3iJJmUFmH5y';
    const made = await impl.createContainer(request(7, 'met-sleutel', { ssh: true, authorizedKeys: [{ publicKey: `${publicKey} laptop`, userId: 1 }] }), logger);
    expect(made.authorizedKeysWritten).toBe(true);
    expect(sshKeys.writes).toEqual([{ containerId: made.container.id, imageId: 'sha256:devplein/php:8.3', keys: [{ publicKey, userId: 1 }], startedBefore: false }]);
    // The second create finds the container: nothing written, so the caller sets the keys itself.
    expect((await impl.createContainer(request(7, 'met-sleutel', { ssh: true }), logger)).authorizedKeysWritten).toBe(false);
    expect(sshKeys.writes).toHaveLength(1);
  });

  it('starts with an empty authorized_keys, not saying the keys were written, when a key of the create is refused', async () => {
    const { impl, sshKeys } = service();
    const made = await impl.createContainer(request(8, 'kapotte-sleutel', { ssh: true, authorizedKeys: [{ publicKey: 'ssh-ed25519 bm9n', userId: 1 }] }), logger);
    expect(made.authorizedKeysWritten).toBe(false);
    expect(sshKeys.writes).toEqual([{ containerId: made.container.id, imageId: 'sha256:devplein/php:8.3', keys: [], startedBefore: false }]);
  });

  it('removes the host keys folder an earlier agent version made, with the container', async () => {
    const { impl } = service();
    await impl.createContainer(request(6, 'old', { ssh: true }), logger);
    const legacy = path.join(dataDir, 'ssh', '6');
    await mkdir(legacy, { recursive: true });
    await writeFile(path.join(legacy, 'authorized_keys'), '');
    await impl.removeContainer({ ref: { $case: 'projectId', value: 6 } }, logger);
    await expect(stat(legacy)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('moves the route on start and refuses unknown actions and containers', async () => {
    const { impl, proxy } = service();
    await impl.createContainer(request(5, 'site'), logger);
    proxy.routes.clear();
    const ref = { ref: { $case: 'name' as const, value: 'site' } };
    expect((await impl.changeState(ref, ContainerAction.CONTAINER_ACTION_STOP, logger)).state).toBe('exited');
    expect(proxy.routes.size).toBe(0);
    expect((await impl.changeState(ref, ContainerAction.CONTAINER_ACTION_START, logger)).state).toBe('running');
    expect(proxy.routes.has('site.dev.test')).toBe(true);
    await expect(impl.changeState(ref, ContainerAction.CONTAINER_ACTION_UNSPECIFIED, logger)).rejects.toMatchObject({ kind: 'invalid-argument' });
    await expect(impl.changeState(undefined, ContainerAction.CONTAINER_ACTION_START, logger)).rejects.toMatchObject({ kind: 'invalid-argument' });
    await expect(impl.changeState({ ref: { $case: 'projectId', value: 99 } }, ContainerAction.CONTAINER_ACTION_START, logger)).rejects.toMatchObject({ kind: 'not-found' });
  });

  it('gives a container exactly the capabilities asked for, the old set when none are sent, and refuses any outside the allow-list', async () => {
    const { impl, docker, proxy } = service();
    await impl.createContainer(request(6, 'caps', { capabilities: { add: ['SETUID', 'CHOWN', 'SETUID'] } }), logger);
    expect(docker.created[0]?.capabilities).toEqual(['CHOWN', 'SETUID']);
    await impl.createContainer(request(7, 'none', { capabilities: { add: [] } }), logger);
    expect(docker.created[1]?.capabilities).toEqual([]);
    // A control plane older than contract 1.3.0 sends no capabilities: the set containers always had.
    await impl.createContainer(request(8, 'legacy'), logger);
    expect(docker.created[2]?.capabilities).toEqual(['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'SETGID', 'SETUID', 'SETPCAP', 'NET_BIND_SERVICE', 'SYS_CHROOT', 'AUDIT_WRITE']);

    for (const add of [['SYS_ADMIN'], ['CHOWN', 'NET_RAW'], ['CAP_CHOWN'], ['chown'], ['ALL']]) {
      const refusal = impl.createContainer(request(9, 'evil', { capabilities: { add } }), logger);
      await expect(refusal).rejects.toMatchObject({ kind: 'invalid-argument' });
      const error: unknown = await refusal.catch((caught: unknown) => caught);
      expect(dockerFailure(error)).toMatchObject({ code: grpc.status.INVALID_ARGUMENT, details: expect.stringContaining('not allowed') });
    }
    expect(docker.created).toHaveLength(3);
    expect(proxy.routes.has('evil.dev.test')).toBe(false);
  });

  it('maps failures to gRPC statuses and hides internal details', () => {
    expect(dockerFailure(new DockerError('failed-precondition', 'Container x is not running'))).toEqual({ code: grpc.status.FAILED_PRECONDITION, details: 'Container x is not running' });
    expect(dockerFailure(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))?.code).toBe(grpc.status.UNAVAILABLE);
    // The rest is unexpected: grpcReply answers it INTERNAL with a generic message (grpc-reply.test.ts).
    expect(dockerFailure(new Error('secret internals'))).toBeUndefined();
  });

  it('makes strong passwords', () => {
    const passwords = new Set(Array.from({ length: 50 }, () => strongPassword()));
    expect(passwords.size).toBe(50);
    for (const password of passwords) expect(password).toMatch(/^[A-Za-z0-9]{24}$/);
  });
});

describe('ContainerServiceImpl checks what it is asked (defence against a control plane that is not itself)', () => {
  const byName = (name: string) => ({ ref: { $case: 'name' as const, value: name } });

  it('creates only for domains under its own site domain', async () => {
    const { impl, docker, proxy } = service();
    for (const domain of ['devplein.school.nl', 'dev.test', 'x.dev.test.evil.nl', 'xdev.test', 'a.other.test']) {
      await expect(impl.createContainer(request(20, 'site', { domain }), logger), domain).rejects.toMatchObject({ kind: 'invalid-argument', message: expect.stringMatching(/dev\.test/) });
    }
    expect(docker.created).toHaveLength(0);
    expect(proxy.routes.size).toBe(0);
    await impl.createContainer(request(20, 'site', { domain: 'deep.site.dev.test' }), logger);
    expect(proxy.routes.has('deep.site.dev.test')).toBe(true);
  });

  it('takes limits up to the configured maximum and refuses more (never cuts them silently)', async () => {
    const { impl, docker } = service();
    const within = { memoryBytes: 2048 * 1024 * 1024, nanoCpus: 2e9, pids: 1024 };
    await impl.createContainer(request(21, 'big', { limits: within }), logger);
    expect(docker.created[0]?.limits).toEqual(within);
    for (const limits of [{ memoryBytes: 2048 * 1024 * 1024 + 1 }, { nanoCpus: 2e9 + 1 }, { pids: 1025 }, { memoryBytes: 1e15 }]) {
      await expect(impl.createContainer(request(22, 'bigger', { limits }), logger), JSON.stringify(limits)).rejects.toMatchObject({
        kind: 'invalid-argument',
        message: expect.stringMatching(/at most/),
      });
    }
    expect(docker.created).toHaveLength(1);
  });

  it('refuses a log tail above its maximum instead of cutting it', async () => {
    const { impl } = service();
    await impl.createContainer(request(23, 'logs'), logger);
    await expect(impl.getLogs({ ref: { $case: 'projectId', value: 23 } }, 10_001)).rejects.toMatchObject({ kind: 'invalid-argument' });
    await expect(impl.getLogs({ ref: { $case: 'projectId', value: 23 } }, 10_000)).resolves.toEqual([]);
  });

  it('reads logs and resets WordPress passwords only in its own project containers', async () => {
    const { impl, docker } = service();
    docker.addUnmanaged('legacy-blog', { 'devplein.wordpress': 'true' });
    await expect(impl.getLogs(byName('legacy-blog'), 10)).rejects.toMatchObject({ kind: 'permission-denied' });
    await expect(impl.resetWordpressPassword(byName('legacy-blog'), '', logger)).rejects.toMatchObject({ kind: 'permission-denied' });
    expect(docker.execs).toHaveLength(0);
    expect(docker.logReads).toHaveLength(0);
    const { container } = await impl.createContainer(request(24, 'press', { wordpress: true }), logger);
    container.labels['devplein.wordpress'] = 'true';
    await expect(impl.resetWordpressPassword(byName('press'), '', logger)).resolves.toMatchObject({ username: 'admin' });
  });

  it('starts, stops and removes unmanaged containers (the admin screen, adoption) but never infrastructure', async () => {
    const { impl, docker } = service();
    docker.addUnmanaged('oldsite');
    const caddy = docker.addUnmanaged('caddy', { 'devplein.infrastructure': 'true' });
    expect((await impl.changeState(byName('oldsite'), ContainerAction.CONTAINER_ACTION_STOP, logger)).state).toBe('exited');
    for (const action of [ContainerAction.CONTAINER_ACTION_STOP, ContainerAction.CONTAINER_ACTION_PAUSE, ContainerAction.CONTAINER_ACTION_RESTART]) {
      await expect(impl.changeState(byName('caddy'), action, logger)).rejects.toMatchObject({ kind: 'permission-denied' });
    }
    await expect(impl.removeContainer(byName('caddy'), logger)).rejects.toMatchObject({ kind: 'permission-denied' });
    expect(docker.containers.get(caddy.id)?.state).toBe('running');
    expect(await impl.removeContainer(byName('oldsite'), logger)).toBe(true);
  });

  it('answers PERMISSION_DENIED for these refusals', () => {
    expect(dockerFailure(new DockerError('permission-denied', 'no'))).toMatchObject({ code: grpc.status.PERMISSION_DENIED, details: 'no' });
  });
});
