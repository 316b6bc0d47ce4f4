/**
 * ContainerService end to end: the real host agent as its own process, over gRPC with mutual
 * TLS, against the real Docker engine, a throwaway Caddy and a throwaway image registry. Every
 * container, network and image of this file carries a random suffix and is removed afterwards.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Container,
  ContainerAction,
  type ContainerEvent,
  type ContainerRef,
  ContainerServiceClient,
  type CreateContainerRequest,
  LogStream,
  type LogLine,
  type PullImageResponse,
} from '@devplein/proto/container';
import { CONTRACT_VERSION, CONTRACT_VERSION_METADATA_KEY } from '@devplein/proto/version';
import { tarEntries } from '../../../host-agent/src/drivers/ssh/authorized-keys.ts';
import { makeTestCerts, readClientPems, startTestAgent, type ClientPems, type TestAgent } from '../../support/agent.ts';
import { type TestCaddy, startCaddy, visitSite } from '../../support/caddy.ts';
import {
  WEB_STDERR_LINE,
  WEB_STDOUT_LINE,
  dockerCli,
  ensureWebImage,
  ensureWordpressImage,
  imageExists,
  makeUniqueImage,
  randomSuffix,
  requireDockerEngine,
  testDocker,
} from '../../support/docker.ts';
import { waitFor } from '../../support/ports.ts';
import { type TestRegistry, startRegistry } from '../../support/registry.ts';

const suffix = randomSuffix();
const network = `devplein-test-net-${suffix}`;
const docker = testDocker();
/** Project ids no other test file uses (the engine and its managed containers are shared). */
const projectBase = 700_000_000 + Math.floor(Math.random() * 1_000_000) * 10;
const sshFirstPort = 41_000 + Math.floor(Math.random() * 8_000);

let workDir: string;
let dataDir: string;
let pems: ClientPems;
let agent: TestAgent;
let caddy: TestCaddy;
let registry: TestRegistry;
let client: ContainerServiceClient;
let webImage: string;
let wordpressImage: string;
const extraImages: string[] = [];

function metadata(): grpc.Metadata {
  const md = new grpc.Metadata();
  md.set(CONTRACT_VERSION_METADATA_KEY, CONTRACT_VERSION);
  return md;
}

const options = (ms = 20_000): Partial<grpc.CallOptions> => ({ deadline: new Date(Date.now() + ms) });

type Unary<Req, Res> = (request: Req, md: grpc.Metadata, opts: Partial<grpc.CallOptions>, callback: (error: grpc.ServiceError | null, response: Res) => void) => unknown;

function call<Req, Res>(method: Unary<Req, Res>, request: Req, target: ContainerServiceClient = client): Promise<Res> {
  return new Promise((resolve, reject) => {
    method.call(target, request, metadata(), options(), (error, response) => (error ? reject(error) : resolve(response)));
  });
}

/** The gRPC error a promise rejects with. */
async function refusal(promise: Promise<unknown>): Promise<grpc.ServiceError> {
  try {
    await promise;
  } catch (error) {
    return error as grpc.ServiceError;
  }
  throw new Error('expected the call to fail, but it succeeded');
}

/** Reads a server stream to its end: the messages, or the error with the messages so far. */
function collect<T>(stream: grpc.ClientReadableStream<T>): Promise<{ messages: T[]; error?: grpc.ServiceError }> {
  return new Promise((resolve) => {
    const messages: T[] = [];
    stream.on('data', (message: T) => messages.push(message));
    stream.on('error', (error: grpc.ServiceError) => resolve({ messages, error }));
    stream.on('end', () => resolve({ messages }));
  });
}

const create = (request: Partial<CreateContainerRequest> & Pick<CreateContainerRequest, 'projectId' | 'name'>) =>
  call(client.createContainer, {
    domain: `${request.name}.dev.test`,
    image: webImage,
    ownerUserId: 1,
    memberUserIds: [1],
    ssh: false,
    wordpress: false,
    limits: undefined,
    // As a control plane older than contract 1.3.0 sends it: the agent's previous set.
    capabilities: undefined,
    ...request,
  });

const byProject = (projectId: number): ContainerRef => ({ ref: { $case: 'projectId', value: projectId } });
const byName = (name: string): ContainerRef => ({ ref: { $case: 'name', value: name } });

const act = async (container: ContainerRef, action: ContainerAction): Promise<Container> => {
  const response = await call(client.changeContainerState, { container, action });
  if (!response.container) throw new Error('no container in the answer');
  return response.container;
};

/** GET / through Caddy with the project's Host header. */
function viaProxy(domain: string): Promise<{ status: number; body: string }> {
  return visitSite(caddy.httpPort, domain);
}

async function expectServed(domain: string): Promise<void> {
  await waitFor(async () => (await viaProxy(domain)).body.includes('devplein test page'), { description: `${domain} to be served through Caddy`, timeoutMs: 10_000 });
}

beforeAll(async () => {
  requireDockerEngine();
  workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-agent-containers-'));
  dataDir = path.join(workDir, 'data');
  const [certs, startedCaddy, startedRegistry, web, wordpress] = await Promise.all([
    makeTestCerts(path.join(workDir, 'certs')),
    startCaddy(),
    startRegistry(),
    ensureWebImage(),
    ensureWordpressImage(),
  ]);
  caddy = startedCaddy;
  registry = startedRegistry;
  webImage = web;
  wordpressImage = wordpress;
  pems = await readClientPems(certs.ca, certs.clientCert, certs.clientKey);
  agent = await startTestAgent({
    certDir: certs.dir,
    env: {
      AGENT_DOCKER_NETWORK: network,
      AGENT_DATA_DIR: dataDir,
      AGENT_CADDY_ADMIN: caddy.adminUrl,
      AGENT_CADDY_SERVER: caddy.serverName,
      AGENT_CONTAINER_MEMORY_MB: '64',
      AGENT_CONTAINER_CPUS: '0.5',
      AGENT_CONTAINER_PIDS: '64',
      AGENT_WORDPRESS_TIMEOUT_SECONDS: '2',
      AGENT_CONTAINER_MAX_MEMORY_MB: '128',
      AGENT_SITE_DOMAIN: 'dev.test',
      AGENT_PUBLISH_ADDRESS: '127.0.0.1',
      AGENT_SSH_BIND_ADDRESS: '127.0.0.1',
      AGENT_SSH_PORT_RANGE: `${sshFirstPort}-${sshFirstPort + 50}`,
    },
  });
  client = new ContainerServiceClient(agent.address, grpc.credentials.createSsl(pems.caPem, pems.keyPem, pems.certPem));
});

afterAll(async () => {
  client?.close();
  const mine = await docker.listContainers({ all: true, filters: { name: [suffix] } }).catch(() => []);
  await Promise.all(mine.map((info) => docker.getContainer(info.Id).remove({ force: true, v: true }).catch(() => undefined)));
  await docker.getNetwork(network).remove().catch(() => undefined);
  await Promise.all(extraImages.map((image) => docker.getImage(image).remove({ force: true }).catch(() => undefined)));
  await agent?.stop();
  await Promise.all([caddy?.stop(), registry?.stop()]);
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('ContainerService on the Docker engine', () => {
  const blog = { projectId: projectBase + 1, name: `blog-${suffix}` };

  it('creates a labelled, limited, unprivileged container on the project network, routed through Caddy, once', async () => {
    const first = await create(blog);
    expect(first.created).toBe(true);
    const container = first.container;
    expect(container).toMatchObject({ names: [`/${blog.name}`], image: webImage, state: 'running', projectId: blog.projectId, domain: `${blog.name}.dev.test` });
    expect(container?.status).toMatch(/^Up /);
    expect(container?.labels).toMatchObject({
      'devplein.managed': 'true',
      'devplein.project-id': String(blog.projectId),
      'devplein.domain': `${blog.name}.dev.test`,
      'devplein.owner-id': '1',
      'devplein.ssh': 'false',
      'devplein.wordpress': 'false',
      'devplein.http-port': '80',
    });

    const inspect = await docker.getContainer(container?.id ?? '').inspect();
    expect(inspect.HostConfig).toMatchObject({ Memory: 64 * 1024 * 1024, NanoCpus: 500_000_000, PidsLimit: 64, Privileged: false, Init: true, NetworkMode: network });
    expect(inspect.HostConfig.RestartPolicy?.Name).toBe('unless-stopped');
    expect(inspect.HostConfig.Binds ?? []).toEqual([]);
    expect(inspect.HostConfig.PortBindings?.['80/tcp']).toEqual([{ HostIp: '127.0.0.1', HostPort: '' }]);
    await expectServed(`${blog.name}.dev.test`);

    const second = await create({ ...blog, image: 'devplein-test/other:1' });
    expect(second.created).toBe(false);
    expect(second.container?.id).toBe(container?.id);
  });

  it('runs lifecycle actions and answers with the new State and Status; a bad transition is FAILED_PRECONDITION', async () => {
    const ref = byProject(blog.projectId);
    const stopped = await act(ref, ContainerAction.CONTAINER_ACTION_STOP);
    expect(stopped.state).toBe('exited');
    expect(stopped.status).toMatch(/^Exited \(\d+\)/);

    const pausedStopped = await refusal(act(ref, ContainerAction.CONTAINER_ACTION_PAUSE));
    expect(pausedStopped.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(pausedStopped.details).toMatch(/not running/i);

    // Stopping again is not an error: the wanted state holds.
    expect((await act(ref, ContainerAction.CONTAINER_ACTION_STOP)).state).toBe('exited');
    expect((await act(ref, ContainerAction.CONTAINER_ACTION_START)).state).toBe('running');
    const paused = await act(byName(blog.name), ContainerAction.CONTAINER_ACTION_PAUSE);
    expect(paused.state).toBe('paused');
    expect(paused.status).toMatch(/\(Paused\)/);
    expect((await act(ref, ContainerAction.CONTAINER_ACTION_UNPAUSE)).state).toBe('running');
    const restarted = await act(ref, ContainerAction.CONTAINER_ACTION_RESTART);
    expect(restarted.state).toBe('running');
    expect(restarted.status).toMatch(/^Up /);
    await expectServed(`${blog.name}.dev.test`);

    expect((await refusal(act(ref, ContainerAction.CONTAINER_ACTION_UNSPECIFIED))).code).toBe(grpc.status.INVALID_ARGUMENT);
    expect((await refusal(act(byProject(projectBase + 9), ContainerAction.CONTAINER_ACTION_START))).code).toBe(grpc.status.NOT_FOUND);
    expect((await refusal(act(byName(`nobody-${suffix}`), ContainerAction.CONTAINER_ACTION_START))).code).toBe(grpc.status.NOT_FOUND);
  });

  it('returns the last log lines with their stream and time, and follows the output until the container stops', async () => {
    const { lines } = await call(client.getContainerLogs, { container: byProject(blog.projectId), tail: 0 });
    const out = lines.find((line) => line.text === WEB_STDOUT_LINE);
    const err = lines.find((line) => line.text === WEB_STDERR_LINE);
    expect(out?.stream).toBe(LogStream.LOG_STREAM_STDOUT);
    expect(err?.stream).toBe(LogStream.LOG_STREAM_STDERR);
    expect(out?.time).toBeInstanceOf(Date);
    expect(Math.abs((out?.time?.getTime() ?? 0) - Date.now())).toBeLessThan(120_000);
    const { lines: last } = await call(client.getContainerLogs, { container: byProject(blog.projectId), tail: 1 });
    expect(last).toHaveLength(1);

    const followed: LogLine[] = [];
    const stream = client.followContainerLogs({ container: byProject(blog.projectId), tail: 2 }, metadata(), options());
    stream.on('data', (message: { line?: LogLine }) => message.line && followed.push(message.line));
    const ended = collect(stream);
    await waitFor(() => followed.length >= 2, { description: 'the two earlier lines', timeoutMs: 5_000 });
    expect(followed.map((line) => line.stream).sort()).toEqual([LogStream.LOG_STREAM_STDOUT, LogStream.LOG_STREAM_STDERR]);
    await docker.getContainer(`${blog.name}`).stop({ t: 5 });
    const result = await ended;
    expect(result.error).toBeUndefined();
    await act(byProject(blog.projectId), ContainerAction.CONTAINER_ACTION_START);

    const cancelled = client.followContainerLogs({ container: byProject(blog.projectId), tail: 1 }, metadata(), options());
    const outcome = collect(cancelled);
    await new Promise((resolve) => cancelled.once('data', resolve));
    cancelled.cancel();
    expect((await outcome).error?.code).toBe(grpc.status.CANCELLED);
  });

  it('lists managed containers by project, and unmanaged ones only when asked', async () => {
    const unmanagedName = `unmanaged-${suffix}`;
    const unmanaged = await docker.createContainer({ name: unmanagedName, Image: webImage, HostConfig: { Init: true } });
    const managed = await call(client.listContainers, { projectIds: [blog.projectId], includeUnmanaged: false });
    expect(managed.containers.map((container) => container.names[0])).toEqual([`/${blog.name}`]);
    const all = await call(client.listContainers, { projectIds: [], includeUnmanaged: false });
    expect(all.containers.some((container) => container.id === unmanaged.id)).toBe(false);
    const everything = await call(client.listContainers, { projectIds: [], includeUnmanaged: true });
    expect(everything.containers.find((container) => container.id === unmanaged.id)).toMatchObject({ state: 'created', projectId: 0, domain: '', names: [`/${unmanagedName}`] });
    // The admin API addresses unmanaged containers by name.
    expect((await act(byName(unmanagedName), ContainerAction.CONTAINER_ACTION_START)).state).toBe('running');
    // ... but never looks inside them: logs (and exec) are for the agent's own containers only.
    expect((await refusal(call(client.getContainerLogs, { container: byName(unmanagedName), tail: 1 }))).code).toBe(grpc.status.PERMISSION_DENIED);
    expect(await call(client.removeContainer, { container: byName(unmanagedName) })).toEqual({ removed: true });
  });

  it('refuses every action on a container labelled as the host’s infrastructure (PERMISSION_DENIED), and leaves it as it was', async () => {
    const infraName = `infra-${suffix}`;
    const infra = await docker.createContainer({ name: infraName, Image: webImage, Labels: { 'devplein.infrastructure': 'true' }, HostConfig: { Init: true } });
    await infra.start();
    for (const action of [ContainerAction.CONTAINER_ACTION_STOP, ContainerAction.CONTAINER_ACTION_PAUSE, ContainerAction.CONTAINER_ACTION_RESTART]) {
      expect((await refusal(act(byName(infraName), action))).code, String(action)).toBe(grpc.status.PERMISSION_DENIED);
    }
    expect((await refusal(call(client.removeContainer, { container: byName(infraName) }))).code).toBe(grpc.status.PERMISSION_DENIED);
    expect((await refusal(call(client.getContainerLogs, { container: byName(infraName), tail: 1 }))).code).toBe(grpc.status.PERMISSION_DENIED);
    expect((await refusal(call(client.execWordpressPasswordReset, { container: byName(infraName), username: '' }))).code).toBe(grpc.status.PERMISSION_DENIED);
    const after = await infra.inspect();
    expect(after.State.Running).toBe(true);
    expect(after.State.Paused).toBe(false);
    expect(after.RestartCount).toBe(0);
  });

  it('refuses a domain outside its site domain and limits above its maximum (INVALID_ARGUMENT), creating nothing', async () => {
    const outside = await refusal(create({ projectId: projectBase + 40, name: `outside-${suffix}`, domain: 'devplein.school.nl' }));
    expect(outside.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(outside.details).toMatch(/site domain dev\.test/);
    const greedy = await refusal(create({ projectId: projectBase + 41, name: `greedy-${suffix}`, limits: { memoryBytes: 129 * 1024 * 1024, nanoCpus: 0, pids: 0 } }));
    expect(greedy.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(greedy.details).toMatch(/at most/);
    expect(await docker.listContainers({ all: true, filters: { name: [`outside-${suffix}`, `greedy-${suffix}`] } })).toEqual([]);
  });

  it('pulls from a registry with progress events, says when an image is present, and fails clearly for unknown images', async () => {
    const local = await makeUniqueImage(`devplein-test/pull-${suffix}:1`);
    const reference = await registry.push(local, `pull-${suffix}:1`);
    await docker.getImage(local).remove({ force: true });
    extraImages.push(reference);

    const pull = await collect<PullImageResponse>(client.pullImage({ image: reference, projectId: blog.projectId }, metadata(), options(60_000)));
    expect(pull.error).toBeUndefined();
    const statuses = pull.messages.map((event) => event.status);
    expect(statuses.some((status) => /Pull complete|Download complete/.test(status))).toBe(true);
    expect(pull.messages.some((event) => event.layerId !== '')).toBe(true);
    expect(statuses.at(-1)).toMatch(/Downloaded newer image|Image is up to date/);
    expect(await imageExists(reference)).toBe(true);

    const again = await collect<PullImageResponse>(client.pullImage({ image: reference, projectId: 0 }, metadata(), options()));
    expect(again.error).toBeUndefined();
    expect(again.messages).toHaveLength(1);
    expect(again.messages[0]?.status).toContain('present locally');

    const unknown = await collect(client.pullImage({ image: `${registry.host}/nope-${suffix}:1`, projectId: 0 }, metadata(), options()));
    expect(unknown.error?.code).toBe(grpc.status.NOT_FOUND);
    expect(unknown.error?.details).toContain(`${registry.host}/nope-${suffix}:1 does not exist`);

    const away = await collect(client.pullImage({ image: `127.0.0.1:1/nope-${suffix}:1`, projectId: 0 }, metadata(), options()));
    expect(away.error?.code).toBe(grpc.status.UNAVAILABLE);
    expect(away.error?.details).toContain('registry 127.0.0.1:1');

    const invalid = await collect(client.pullImage({ image: 'Not An Image', projectId: 0 }, metadata(), options()));
    expect(invalid.error?.code).toBe(grpc.status.INVALID_ARGUMENT);
  });

  it('pulls a missing image when it creates a container, and refuses bad input and unknown images', async () => {
    const reference = await registry.push(webImage, `web-${suffix}:1`);
    extraImages.push(reference);
    const pulled = await create({ projectId: projectBase + 2, name: `pulled-${suffix}`, image: reference });
    expect(pulled).toMatchObject({ created: true, container: { image: reference, state: 'running' } });

    const bad = (request: Partial<CreateContainerRequest>) => refusal(create({ projectId: projectBase + 3, name: `bad-${suffix}`, ...request }));
    expect((await bad({ name: 'Bad_Name' })).code).toBe(grpc.status.INVALID_ARGUMENT);
    expect((await bad({ domain: 'not a domain' })).code).toBe(grpc.status.INVALID_ARGUMENT);
    expect((await bad({ image: 'UPPER CASE' })).code).toBe(grpc.status.INVALID_ARGUMENT);
    expect((await bad({ projectId: 0 })).code).toBe(grpc.status.INVALID_ARGUMENT);
    const unknown = await bad({ image: `${registry.host}/missing-${suffix}:1` });
    expect(unknown.code).toBe(grpc.status.NOT_FOUND);
    expect(unknown.details).toContain('does not exist');
    // The name of another project's container is taken.
    expect((await bad({ name: blog.name })).code).toBe(grpc.status.FAILED_PRECONDITION);
  });

  it('streams container events with the state after each, also for changes made outside the agent', async () => {
    const projectId = projectBase + 4;
    const name = `events-${suffix}`;
    const { container } = await create({ projectId, name });
    const since = new Date(Date.now() - 1_000);
    const events: ContainerEvent[] = [];
    const stream = client.watchContainerEvents({ projectIds: [projectId], includeUnmanaged: false, since }, metadata(), { deadline: Infinity });
    stream.on('data', (message: { event?: ContainerEvent }) => message.event && events.push(message.event));
    const ended = collect(stream);
    /** Waits for an event of `action` with `state`, among the events from index `from` on. */
    const seen = async (action: string, state: string, from = 0) => {
      try {
        await waitFor(() => events.slice(from).some((event) => event.action === action && event.state === state), { description: `the ${action} event with state ${state}`, timeoutMs: 10_000 });
      } catch (error) {
        throw new Error(`${(error as Error).message}; events so far: ${JSON.stringify(events.map((event) => [event.action, event.state, event.status]))}`);
      }
    };

    const direct = docker.getContainer(container?.id ?? '');
    await direct.stop({ t: 5 });
    await seen('stop', 'exited');
    await seen('die', 'exited');
    const beforeStart = events.length;
    await dockerCli(['start', name]);
    await seen('start', 'running', beforeStart);
    await direct.pause();
    await seen('pause', 'paused', beforeStart);
    expect(events.find((event) => event.action === 'pause')?.status).toMatch(/^Up .* \(Paused\)$/);
    expect(await call(client.removeContainer, { container: byProject(projectId) })).toEqual({ removed: true });
    await waitFor(() => events.some((event) => event.action === 'destroy'), { description: 'the destroy event', timeoutMs: 10_000 });

    const stop = events.find((event) => event.action === 'stop');
    expect(stop).toMatchObject({ containerId: container?.id, containerName: name, projectId, state: 'exited' });
    expect(stop?.status).toMatch(/^Exited/);
    expect(stop?.time).toBeInstanceOf(Date);
    expect(stop?.attributes['devplein.domain']).toBe(`${name}.dev.test`);
    expect(events.find((event) => event.action === 'destroy')).toMatchObject({ state: '', status: '' });
    expect(events.every((event) => event.projectId === projectId)).toBe(true);

    stream.cancel();
    expect((await ended).error?.code).toBe(grpc.status.CANCELLED);
  });

  it('resets a WordPress password through wp-cli, only in WordPress containers', async () => {
    const projectId = projectBase + 5;
    const name = `wp-${suffix}`;
    await create({ projectId, name, image: wordpressImage, wordpress: true });

    const reset = await call(client.execWordpressPasswordReset, { container: byProject(projectId), username: '' });
    expect(reset.username).toBe('admin');
    expect(reset.password).toMatch(/^[A-Za-z0-9]{24}$/);
    expect(await dockerCli(['exec', name, 'cat', '/tmp/wp-password-admin'])).toBe(reset.password);
    const calls = await dockerCli(['exec', name, 'cat', '/tmp/wp-calls']);
    // wp runs as the web server's user (www-data, uid 33), never as root.
    expect(calls).toContain('uid=33 user list --role=administrator --field=user_login');
    expect(calls).toContain('uid=33 user update admin --user_pass=*** --skip-email');
    expect(calls).not.toContain('--allow-root');
    expect(calls).not.toContain('uid=0');

    const named = await call(client.execWordpressPasswordReset, { container: byName(name), username: 'admin' });
    expect(named.password).not.toBe(reset.password);
    expect((await refusal(call(client.execWordpressPasswordReset, { container: byProject(projectId), username: 'bob' }))).code).toBe(grpc.status.NOT_FOUND);
    expect((await refusal(call(client.execWordpressPasswordReset, { container: byProject(projectId), username: '--help' }))).code).toBe(grpc.status.INVALID_ARGUMENT);
    const notWordpress = await refusal(call(client.execWordpressPasswordReset, { container: byProject(blog.projectId), username: '' }));
    expect(notWordpress.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(notWordpress.details).toContain('not a WordPress container');
  });

  it('stops reading a WordPress reset past 64 KiB of output and after its time limit, and says so', async () => {
    const projectId = projectBase + 7;
    const name = `wp-hostile-${suffix}`;
    await create({ projectId, name, image: wordpressImage, wordpress: true });

    // A site whose wp prints 1 MiB: the agent keeps at most 64 KiB and refuses the answer.
    await dockerCli(['exec', name, 'touch', '/tmp/wp-flood']);
    const flooded = await refusal(call(client.execWordpressPasswordReset, { container: byProject(projectId), username: '' }));
    expect(flooded.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(flooded.details).toContain('more than 64 KiB');

    // A site whose wp never ends: the agent's time limit (AGENT_WORDPRESS_TIMEOUT_SECONDS=2 here)
    // answers long before the caller's deadline of 20 s.
    await dockerCli(['exec', name, 'sh', '-c', 'rm /tmp/wp-flood && touch /tmp/wp-hang']);
    const started = Date.now();
    const hung = await refusal(call(client.execWordpressPasswordReset, { container: byProject(projectId), username: '' }));
    expect(hung.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(hung.details).toContain('did not finish within 2 s');
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('gives SSH images a port from the range and an empty authorized_keys of the student inside the container, no host mount', async () => {
    const projectId = projectBase + 6;
    const name = `ssh-${suffix}`;
    const { container } = await create({ projectId, name, ssh: true });
    const port = Number(container?.labels['devplein.ssh-port']);
    expect(port).toBeGreaterThanOrEqual(sshFirstPort);
    expect(port).toBeLessThanOrEqual(sshFirstPort + 50);
    const inspect = await docker.getContainer(container?.id ?? '').inspect();
    expect(inspect.HostConfig.Binds ?? []).toEqual([]);
    expect(inspect.Mounts).toEqual([]);
    expect(inspect.HostConfig.PortBindings?.['22/tcp']).toEqual([{ HostIp: '127.0.0.1', HostPort: String(port) }]);
    // The busybox image's student is uid/gid 1000.
    const entries = await tarEntries((await docker.getContainer(container?.id ?? '').getArchive({ path: '/home/student/.ssh' })) as Readable);
    const keys = entries.find((entry) => entry.name === '.ssh/authorized_keys');
    expect(entries.find((entry) => entry.name === '.ssh/')).toMatchObject({ type: 'directory', uid: 1000, gid: 1000, mode: 0o700 });
    // A hard link in the archive, or the file itself: either way empty and the student's.
    expect(keys).toMatchObject({ uid: 1000, gid: 1000, mode: 0o600 });
    expect(entries.every((entry) => entry.data.length === 0)).toBe(true);
    await expect(stat(path.join(dataDir, 'ssh', String(projectId)))).rejects.toMatchObject({ code: 'ENOENT' });

    expect(await call(client.removeContainer, { container: byProject(projectId) })).toEqual({ removed: true });
  });

  it('removes a container and its route; removing again answers removed=false', async () => {
    const domain = `${blog.name}.dev.test`;
    await expectServed(domain);
    expect(await call(client.removeContainer, { container: byProject(blog.projectId) })).toEqual({ removed: true });
    // Caddy reloads its config when a route goes and may drop a connection made just then.
    await waitFor(async () => (await viaProxy(domain)).status === 404, { description: `${domain} to answer 404 through Caddy`, timeoutMs: 10_000 });
    expect(await docker.listContainers({ all: true, filters: { name: [blog.name] } })).toEqual([]);
    expect(await call(client.removeContainer, { container: byProject(blog.projectId) })).toEqual({ removed: false });
    expect(await call(client.removeContainer, { container: byName(blog.name) })).toEqual({ removed: false });
  });

  it('answers UNAVAILABLE when the Docker engine does not answer', async () => {
    const lonely = await startTestAgent({
      certDir: path.join(workDir, 'certs'),
      env: { AGENT_DOCKER_SOCKET: path.join(workDir, 'no-docker.sock'), AGENT_DATA_DIR: dataDir, AGENT_CADDY_ADMIN: caddy.adminUrl },
    });
    const other = new ContainerServiceClient(lonely.address, grpc.credentials.createSsl(pems.caPem, pems.keyPem, pems.certPem));
    try {
      const error = await refusal(call(other.listContainers, { projectIds: [], includeUnmanaged: false }, other));
      expect(error.code).toBe(grpc.status.UNAVAILABLE);
      expect(error.details).toContain('Docker engine');
    } finally {
      other.close();
      await lonely.stop();
    }
  });
});
