import type Docker from 'dockerode';
import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { DockerError, translateDockerError } from './docker-errors.ts';
import { DockerEngine } from './engine.ts';
import { EngineDockerDriver, diskLimitProblem, isDiskLimitRefusal, matchesFilter, pullFailure, toContainerView } from './engine-driver.ts';
import { bridgeOf, isIsolatedNetwork, networkCreateOptions } from './project-network.ts';

const config = { network: 'devplein-net', httpPort: 80, publishAddress: '127.0.0.1', sshBindAddress: '0.0.0.0' };
const driver = new EngineDockerDriver(new DockerEngine({} as Docker), config);
const limits = { memoryBytes: 256 * 1024 * 1024, nanoCpus: 500_000_000, pids: 128 };
const base = {
  projectId: 7,
  name: 'blog',
  domain: 'blog.dev.test',
  image: 'devplein/php:8.3',
  ownerUserId: 3,
  ssh: false,
  wordpress: false,
  limits,
  capabilities: ['CHOWN', 'SETUID', 'SETGID', 'NET_BIND_SERVICE'] as const,
};

describe('createOptions', () => {
  it('labels, limits and locks down a project container and publishes its HTTP port on an ephemeral loopback port', () => {
    const options = driver.createOptions(base);
    expect(options.name).toBe('blog');
    expect(options.Labels).toEqual({
      'devplein.managed': 'true',
      'devplein.project-id': '7',
      'devplein.domain': 'blog.dev.test',
      'devplein.owner-id': '3',
      'devplein.ssh': 'false',
      'devplein.wordpress': 'false',
      'devplein.http-port': '80',
    });
    expect(options.HostConfig).toMatchObject({
      Init: true,
      Memory: limits.memoryBytes,
      NanoCpus: limits.nanoCpus,
      PidsLimit: 128,
      Privileged: false,
      RestartPolicy: { Name: 'unless-stopped' },
      NetworkMode: 'devplein-net',
      PortBindings: { '80/tcp': [{ HostIp: '127.0.0.1', HostPort: '' }] },
    });
    expect(options.HostConfig?.Binds).toBeUndefined();
    expect(JSON.stringify(options)).not.toContain('docker.sock');
  });

  it('drops every capability and adds back only those of the image option', () => {
    const options = driver.createOptions(base);
    expect(options.HostConfig?.CapDrop).toEqual(['ALL']);
    expect(options.HostConfig?.CapAdd).toEqual(['CHOWN', 'SETUID', 'SETGID', 'NET_BIND_SERVICE']);
    expect(options.HostConfig?.SecurityOpt).toEqual(['no-new-privileges']);
    expect(options.HostConfig?.Privileged).toBe(false);
    // None at all is allowed too: nothing is added back.
    const none = driver.createOptions({ ...base, capabilities: [] });
    expect(none.HostConfig?.CapDrop).toEqual(['ALL']);
    expect(none.HostConfig?.CapAdd).toEqual([]);
  });

  it('adds the SSH port for SSH images and mounts no host folder (the keys go into the container)', () => {
    const options = driver.createOptions({ ...base, ssh: true, sshPort: 2201 });
    expect(options.Labels).toMatchObject({ 'devplein.ssh': 'true', 'devplein.ssh-port': '2201' });
    expect(options.HostConfig?.PortBindings).toMatchObject({ '22/tcp': [{ HostIp: '0.0.0.0', HostPort: '2201' }] });
    expect(options.HostConfig?.Binds).toBeUndefined();
    expect(options.HostConfig?.Mounts).toBeUndefined();
    expect(() => driver.createOptions({ ...base, ssh: true })).toThrow(/sshPort/);
  });
});

describe('disk limit', () => {
  it('is no StorageOpt by default and the size in bytes when set', () => {
    expect(driver.createOptions(base).HostConfig?.StorageOpt).toBeUndefined();
    const limited = new EngineDockerDriver(new DockerEngine({} as Docker), { ...config, diskLimitBytes: 2 * 1024 ** 3 });
    expect(limited.createOptions(base).HostConfig?.StorageOpt).toEqual({ size: '2147483648' });
  });

  it("tells from Docker's info whether the engine can enforce it", () => {
    expect(diskLimitProblem({ Driver: 'overlay2', DriverStatus: [['Backing Filesystem', 'xfs'], ['Supports d_type', 'true']] })).toBeUndefined();
    expect(diskLimitProblem({ Driver: 'overlay2', DriverStatus: [['Backing Filesystem', 'extfs']] })).toMatch(/on extfs.*XFS mounted with pquota/);
    expect(diskLimitProblem({ Driver: 'vfs', DriverStatus: [] })).toMatch(/storage driver is vfs/);
    expect(diskLimitProblem({ Driver: 'btrfs', DriverStatus: [['Build Version', 'Btrfs v6.2']] })).toBeUndefined();
  });

  it("recognises the engine's refusal", () => {
    expect(isDiskLimitRefusal("--storage-opt is supported only for overlay over xfs with 'pquota' mount option")).toBe(true);
    expect(isDiskLimitRefusal('No such image: x')).toBe(false);
  });
});

describe('project network', () => {
  it('is made with inter-container traffic off and recognised by that option', () => {
    const options = networkCreateOptions('devplein');
    expect(options).toMatchObject({ Name: 'devplein', Driver: 'bridge', Labels: { 'devplein.managed': 'true' }, Options: { 'com.docker.network.bridge.enable_icc': 'false' } });
    expect(isIsolatedNetwork({ Options: options.Options ?? {} })).toBe(true);
    expect(isIsolatedNetwork({ Options: {} })).toBe(false);
    expect(isIsolatedNetwork({ Options: { 'com.docker.network.bridge.enable_icc': 'true' } })).toBe(false);
  });

  it("names Docker's bridge interface", () => {
    expect(bridgeOf({ Id: '0123456789abcdef0123', Options: {} })).toBe('br-0123456789ab');
    expect(bridgeOf({ Id: '0123456789abcdef0123', Options: { 'com.docker.network.bridge.name': 'docker-dp' } })).toBe('docker-dp');
  });
});

describe('views and filters', () => {
  const info = (labels: Record<string, string>) =>
    ({ Id: 'abc', Names: ['/blog'], Image: 'x', State: 'running', Status: 'Up 3 seconds', Labels: labels, Created: 1_700_000_000 }) as Docker.ContainerInfo;

  it('reads the project only from managed containers', () => {
    expect(toContainerView(info({ 'devplein.managed': 'true', 'devplein.project-id': '7', 'devplein.domain': 'a.nl' }))).toMatchObject({ projectId: 7, domain: 'a.nl', state: 'running', status: 'Up 3 seconds' });
    expect(toContainerView(info({ 'devplein.project-id': '7', 'devplein.domain': 'a.nl' }))).toMatchObject({ projectId: 0, domain: '' });
  });

  it('filters by managed and project ids', () => {
    const managed = { labels: { 'devplein.managed': 'true' }, projectId: 7 };
    const unmanaged = { labels: {}, projectId: 0 };
    expect(matchesFilter(managed, { projectIds: [], includeUnmanaged: false })).toBe(true);
    expect(matchesFilter(managed, { projectIds: [8], includeUnmanaged: true })).toBe(false);
    expect(matchesFilter(unmanaged, { projectIds: [], includeUnmanaged: false })).toBe(false);
    expect(matchesFilter(unmanaged, { projectIds: [], includeUnmanaged: true })).toBe(true);
  });
});

describe('errors', () => {
  it('maps engine answers to contract kinds', () => {
    const kind = (error: unknown) => (translateDockerError(error, 'x') as DockerError).kind;
    expect(kind({ statusCode: 404, json: { message: 'No such container' } })).toBe('not-found');
    expect(kind({ statusCode: 409, json: { message: 'Container abc is not running' } })).toBe('failed-precondition');
    expect(kind({ statusCode: 400, json: { message: 'bad' } })).toBe('invalid-argument');
    expect(kind(Object.assign(new Error('connect ENOENT /var/run/docker.sock'), { code: 'ENOENT' }))).toBe('unavailable');
    const internal = { statusCode: 500, json: { message: 'boom' } };
    expect(translateDockerError(internal, 'x')).toBe(internal);
  });

  it('tells an unknown image from an unreachable registry', () => {
    expect((pullFailure('127.0.0.1:5000/nope:1', 'manifest for 127.0.0.1:5000/nope:1 not found: manifest unknown') as DockerError).kind).toBe('not-found');
    const away = pullFailure('127.0.0.1:1/x:1', 'Get "http://127.0.0.1:1/v2/": dial tcp 127.0.0.1:1: connect: connection refused') as DockerError;
    expect(away.kind).toBe('unavailable');
    expect(away.message).toContain('127.0.0.1:1');
    expect(pullFailure('x', 'disk full')).not.toBeInstanceOf(DockerError);
  });
});

describe('the list after an event', () => {
  const labels = { 'devplein.managed': 'true', 'devplein.project-id': '7', name: 'blog' };
  const listed = (state: string, status: string) => ({ Id: 'c1', Names: ['/blog'], Image: 'img', State: state, Status: status, Labels: labels, Created: 1 });
  const running = { Status: 'running', Running: true, Paused: false, Restarting: false, Dead: false, ExitCode: 0, StartedAt: new Date(Date.now() - 5_000).toISOString(), FinishedAt: '0001-01-01T00:00:00Z' };

  it("shows the state of an event it already sent, though the engine's list still has the one before", async () => {
    // Docker announces an event before it updates the copy its list reads (moby checkpoints after
    // LogContainerEvent): a list asked for right after the event can show the state before it. A
    // page reloads its list on every event, so that old state would stay on it.
    const list = [listed('paused', 'Up 5 seconds (Paused)')];
    const events = new PassThrough();
    const engine = {
      listContainers: () => Promise.resolve(list),
      getContainer: () => ({ inspect: () => Promise.resolve({ State: running }) }),
      getEvents: () => Promise.resolve(events),
    } as unknown as Docker;
    const watcher = new EngineDockerDriver(new DockerEngine(engine), config);
    const sent: string[] = [];
    const stop = new AbortController();
    const watching = watcher.watchEvents({ projectIds: [], includeUnmanaged: false }, (event) => sent.push(`${event.action} ${event.state}`), stop.signal);
    await vi.waitFor(() => expect(events.listenerCount('data')).toBeGreaterThan(0));
    events.write(`${JSON.stringify({ Action: 'unpause', Actor: { ID: 'c1', Attributes: labels }, timeNano: Date.now() * 1e6 })}\n`);
    await vi.waitFor(() => expect(sent).toEqual(['unpause running']));

    const [view] = await watcher.list({ projectIds: [], includeUnmanaged: false });
    expect([view?.state, view?.status]).toEqual(['running', 'Up 5 seconds']);
    // Once the engine's list has caught up, it is read as it is.
    list[0] = listed('running', 'Up 6 seconds');
    expect((await watcher.list({ projectIds: [], includeUnmanaged: false }))[0]?.status).toBe('Up 6 seconds');
    stop.abort();
    events.end();
    await watching;
  });
});
