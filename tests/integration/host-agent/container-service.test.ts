/**
 * The host agent's ContainerService (host-agent/src/services/container-service.ts) on the real
 * Docker engine: the service over gRPC, the capabilities a container gets, and the disk limit of
 * the Docker driver under it. Each part has its own agent (or private dockerd).
 */
import { stat, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type Readable, PassThrough } from 'node:stream';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Container, ContainerAction, type ContainerEvent, type ContainerRef, ContainerServiceClient, type CreateContainerRequest, LogStream, type LogLine, type PullImageResponse } from '@devplein/proto/container';
import { CONTRACT_VERSION, CONTRACT_VERSION_METADATA_KEY } from '@devplein/proto/version';
import { tarEntries } from '../../../host-agent/src/drivers/docker/container-files.ts';
import { makeTestCerts, readClientPems, startTestAgent, type ClientPems, type TestAgent } from '../../support/services/agent.ts';
import { type TestCaddy, startCaddy, visitSite } from '../../support/services/caddy.ts';
import { WEB_STDERR_LINE, WEB_STDOUT_LINE, dockerCli, ensureWordpressImage, imageExists, makeUniqueImage, ensureWebImage, randomSuffix, requireDockerEngine, testDocker } from '../../support/services/docker.ts';
import { waitFor } from '../../support/clients/ports.ts';
import { type TestRegistry, startRegistry } from '../../support/services/registry.ts';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type Docker from 'dockerode';
import { refusal, unaryCall } from '../../support/clients/agent-calls.ts';
import { type SshTestAgent, startSshTestAgent } from '../../support/services/ssh-agent.ts';
import { dropbearPath, ensureSshImage, SSH_IMAGE_CAPABILITIES } from '../../support/fixtures/ssh-image.ts';
import { expectSshLogin, sshKeyFile } from '../../support/clients/ssh-login.ts';
import { findExecutable } from '../../support/services/system-deps.ts';
import type { NewContainer } from '../../../host-agent/src/drivers/docker/docker-driver.ts';
import { EngineDockerDriver, diskLimitProblem } from '../../../host-agent/src/drivers/docker/engine-driver.ts';
import { DockerEngine } from '../../../host-agent/src/drivers/docker/engine.ts';
import { SshPortTakenError } from '../../../host-agent/src/drivers/docker/docker-errors.ts';
import { type PrivateDockerd, startPrivateDockerd } from '../../support/services/private-docker.ts';

/**
 * ContainerService end to end: the real host agent as its own process, over gRPC with mutual
 * TLS, against the real Docker engine, a throwaway Caddy and a throwaway image registry. Every
 * container, network and image of this file carries a random suffix and is removed afterwards.
 */
describe('ContainerService on the Docker engine', () => {
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
      // As a control plane older than contract 1.4.0 sends it: an empty authorized_keys.
      authorizedKeys: [],
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
    // start, pause and unpause are told from the event and the State before (no inspect, event-state.ts).
    await direct.unpause();
    await seen('unpause', 'running', beforeStart);
    // From beforeStart on: the create's own start may be replayed (since), with the State at replay time.
    expect(events.slice(beforeStart).find((event) => event.action === 'start')?.status).toMatch(/^Up /);
    expect(events.find((event) => event.action === 'unpause')?.status).toMatch(/^Up [^(]*$/);
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

  it("does not stream the events of another agent's containers on the same engine (another network)", async () => {
    const projectId = projectBase + 50;
    const name = `own-events-${suffix}`;
    await create({ projectId, name });
    // Another agent's container: managed, the same project id (each agent has its own database
    // ids), but on Docker's default bridge instead of this agent's network.
    const foreign = await docker.createContainer({
      name: `foreign-events-${suffix}`,
      Image: webImage,
      Labels: { 'devplein.managed': 'true', 'devplein.project-id': String(projectId) },
      HostConfig: { Init: true },
    });
    const events: ContainerEvent[] = [];
    const stream = client.watchContainerEvents({ projectIds: [projectId], includeUnmanaged: false, since: undefined }, metadata(), { deadline: Infinity });
    stream.on('data', (message: { event?: ContainerEvent }) => message.event && events.push(message.event));
    const ended = collect(stream);
    try {
      await foreign.start();
      await foreign.stop({ t: 1 });
      // Ours after the foreign ones: once its stop arrives, the engine has sent the others too.
      await act(byProject(projectId), ContainerAction.CONTAINER_ACTION_STOP);
      await waitFor(() => events.some((event) => event.containerName === name && event.action === 'stop'), { description: 'the stop event of our own container', timeoutMs: 10_000 });
      expect(events.filter((event) => event.containerId === foreign.id)).toEqual([]);
    } finally {
      stream.cancel();
      await ended;
      await foreign.remove({ force: true }).catch(() => undefined);
      await call(client.removeContainer, { container: byProject(projectId) });
    }
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

  /** The host port Docker bound for the container's SSH port now (undefined: none, e.g. stopped). */
  async function boundSshPort(id: string): Promise<number | undefined> {
    const inspect = await docker.getContainer(id).inspect();
    const bound = inspect.NetworkSettings.Ports?.['22/tcp']?.[0]?.HostPort;
    return bound ? Number(bound) : undefined;
  }

  it('creates in parallel: SSH containers get distinct ports of the range, all routed; the same create twice at once makes one container', async () => {
    const projects = ['a', 'b', 'c', 'd', 'e', 'f'].map((letter, index) => ({ projectId: projectBase + 20 + index, name: `par-${letter}-${suffix}` }));
    const twice = projects[0]!;
    const answers = await Promise.all([...projects.map((project) => create({ ...project, ssh: true })), create({ ...twice, ssh: true })]);

    const forTwice = [answers[0]!, answers[projects.length]!];
    expect(forTwice.map((answer) => answer.created).sort()).toEqual([false, true]);
    expect(forTwice[1]?.container?.id).toBe(forTwice[0]?.container?.id);
    expect(await docker.listContainers({ all: true, filters: { label: [`devplein.project-id=${twice.projectId}`] } })).toHaveLength(1);

    const ports = answers.slice(0, projects.length).map((answer) => Number(answer.container?.labels['devplein.ssh-port']));
    expect(new Set(ports).size).toBe(projects.length);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(sshFirstPort);
      expect(port).toBeLessThanOrEqual(sshFirstPort + 50);
    }
    for (const [index, answer] of answers.slice(0, projects.length).entries()) {
      expect(answer.container?.state).toBe('running');
      expect(await boundSshPort(answer.container?.id ?? '')).toBe(ports[index]);
    }
    // Upserts that queued up behind each other went to Caddy together: every domain is routed.
    await Promise.all(projects.map((project) => expectServed(`${project.name}.dev.test`)));

    await Promise.all(projects.map((project) => call(client.removeContainer, { container: byProject(project.projectId) })));
  });

  it('keeps a container’s SSH port across stop, start and restart; a create meanwhile takes another port', async () => {
    const first = { projectId: projectBase + 30, name: `keep-${suffix}` };
    const { container } = await create({ ...first, ssh: true });
    const port = Number(container?.labels['devplein.ssh-port']);
    expect(await boundSshPort(container?.id ?? '')).toBe(port);

    expect((await act(byProject(first.projectId), ContainerAction.CONTAINER_ACTION_STOP)).state).toBe('exited');
    // Stopped, the port is free on the host, yet it stays this container's.
    const other = await create({ projectId: projectBase + 31, name: `other-${suffix}`, ssh: true });
    expect(Number(other.container?.labels['devplein.ssh-port'])).not.toBe(port);

    expect((await act(byProject(first.projectId), ContainerAction.CONTAINER_ACTION_START)).state).toBe('running');
    expect(await boundSshPort(container?.id ?? '')).toBe(port);
    expect((await act(byProject(first.projectId), ContainerAction.CONTAINER_ACTION_RESTART)).state).toBe('running');
    expect(await boundSshPort(container?.id ?? '')).toBe(port);
    await expectServed(`${first.name}.dev.test`);

    await call(client.removeContainer, { container: byProject(first.projectId) });
    await call(client.removeContainer, { container: byProject(projectBase + 31) });
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

  it('answers UNAVAILABLE when the Docker engine does not answer, and logs that once, not per call', async () => {
    const lonely = await startTestAgent({
      certDir: path.join(workDir, 'certs'),
      env: { AGENT_DOCKER_SOCKET: path.join(workDir, 'no-docker.sock'), AGENT_DATA_DIR: dataDir, AGENT_CADDY_ADMIN: caddy.adminUrl },
    });
    const other = new ContainerServiceClient(lonely.address, grpc.credentials.createSsl(pems.caPem, pems.keyPem, pems.certPem));
    try {
      for (let attempt = 0; attempt < 5; attempt++) {
        const error = await refusal(call(other.listContainers, { projectIds: [], includeUnmanaged: false }, other));
        expect(error.code).toBe(grpc.status.UNAVAILABLE);
        expect(error.details).toContain('Docker engine');
      }
      // Five failed calls, one warning (said again at most once a minute), no ERROR line per call.
      const warnings = () => lonely.output().split('\n').filter((line) => line.includes('calls answer UNAVAILABLE: the Docker engine does not answer'));
      await waitFor(() => warnings().length > 0, { description: 'the warning that Docker does not answer' });
      expect(warnings()).toHaveLength(1);
      expect(lonely.output().split('\n').filter((line) => line.includes('call failed') && /"level":50|ERROR/.test(line))).toEqual([]);
    } finally {
      other.close();
      await lonely.stop();
    }
  });
});

/**
 * Capabilities per image option on the real Docker engine (issue 16): the real agent makes every
 * container with CapDrop ALL and only the capabilities CreateContainer names. A container without
 * CHOWN cannot chown, one with it can; the web image serves on :80 with none at all; the SSH
 * image logs a student in, with a terminal, with SSH_IMAGE_CAPABILITIES only; a name outside the
 * allow-list is INVALID_ARGUMENT and leaves nothing behind; a request without capabilities (an
 * older control plane) gets the set containers had before.
 */
describe('container capabilities on the real engine', () => {
  const execFileAsync = promisify(execFile);
  const suffix = randomSuffix();
  const canLogIn = dropbearPath() !== undefined && findExecutable('ssh') !== undefined && findExecutable('ssh-keygen') !== undefined;
  const docker = testDocker();
  const base = 700_000 + Math.floor(Math.random() * 99_999);

  /** Bit numbers of the capabilities in /proc/<pid>/status (linux/capability.h). */
  const CAPABILITY_BITS: Record<string, number> = {
    CHOWN: 0, DAC_OVERRIDE: 1, FOWNER: 3, FSETID: 4, KILL: 5, SETGID: 6, SETUID: 7, SETPCAP: 8, NET_BIND_SERVICE: 10, NET_RAW: 13, SYS_CHROOT: 18, MKNOD: 27, AUDIT_WRITE: 29, SETFCAP: 31,
  };
  const PREVIOUS_SET = ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'SETGID', 'SETUID', 'SETPCAP', 'NET_BIND_SERVICE', 'SYS_CHROOT', 'AUDIT_WRITE'];

  const mask = (names: readonly string[]): bigint => names.reduce((bits, name) => bits | (1n << BigInt(CAPABILITY_BITS[name] ?? -1)), 0n);

  let stack: SshTestAgent;
  let webImage: string;

  /** Runs a command in the container as root; exit code and output. */
  async function execAsRoot(container: Docker.Container, cmd: string[]): Promise<{ code: number; output: string }> {
    const exec = await container.exec({ Cmd: cmd, AttachStdout: true, AttachStderr: true, User: '0' });
    const stream = await exec.start({ hijack: true, stdin: false });
    const sink = new PassThrough();
    let output = '';
    sink.on('data', (chunk: Buffer) => (output += chunk.toString()));
    docker.modem.demuxStream(stream, sink, sink);
    await new Promise<void>((resolve, reject) => {
      stream.on('end', () => resolve());
      stream.on('error', reject);
    });
    return { code: (await exec.inspect()).ExitCode ?? -1, output };
  }

  /** The bounding set of a process started in the container (what any exec or login can ever have). */
  async function boundingSet(container: Docker.Container): Promise<bigint> {
    const { output } = await execAsRoot(container, ['grep', 'CapBnd', '/proc/self/status']);
    return BigInt(`0x${output.trim().split(/\s+/)[1] ?? ''}`);
  }

  async function make(projectId: number, name: string, add: string[] | undefined, image = webImage, ssh = false) {
    const made = await stack.create({ projectId, name: `${name}-${suffix}`, image, ssh, capabilities: add === undefined ? undefined : { add } });
    return { container: docker.getContainer(made.container?.id ?? ''), labels: made.container?.labels ?? {} };
  }

  beforeAll(async () => {
    requireDockerEngine();
    webImage = await ensureWebImage();
    stack = await startSshTestAgent({ suffix, prefix: 'devplein-agent-caps-' });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('drops ALL: without CHOWN root cannot chown, with it it can; the web server needs none', async () => {
    const [none, chown] = await Promise.all([make(base, 'caps-none', []), make(base + 1, 'caps-chown', ['CHOWN'])]);
    expect((await none.container.inspect()).HostConfig).toMatchObject({ CapDrop: ['ALL'], CapAdd: [], SecurityOpt: ['no-new-privileges'] });
    expect((await chown.container.inspect()).HostConfig).toMatchObject({ CapDrop: ['ALL'], CapAdd: ['CHOWN'] });
    expect(await boundingSet(none.container)).toBe(0n);
    expect(await boundingSet(chown.container)).toBe(mask(['CHOWN']));

    const tryChown = ['sh', '-c', 'touch /tmp/owned && chown 1000:1000 /tmp/owned && stat -c %u /tmp/owned'];
    const refused = await execAsRoot(none.container, tryChown);
    expect(refused.code).not.toBe(0);
    expect(refused.output).toMatch(/Operation not permitted/);
    expect(await execAsRoot(chown.container, tryChown)).toEqual({ code: 0, output: '1000\n' });

    // busybox httpd as root on :80 without NET_BIND_SERVICE: Docker opens ports below 1024 to
    // every user of the container's network namespace.
    expect((await execAsRoot(none.container, ['cat', '/proc/sys/net/ipv4/ip_unprivileged_port_start'])).output.trim()).toBe('0');
    expect(await execAsRoot(none.container, ['wget', '-qO-', 'http://127.0.0.1:80/'])).toEqual({ code: 0, output: 'devplein test page\n' });
  });

  it('refuses a capability outside the allow-list with INVALID_ARGUMENT and makes no container', async () => {
    for (const add of [['SYS_ADMIN'], ['CHOWN', 'NET_RAW'], ['ALL']]) {
      const error = await refusal(make(base + 2, 'caps-evil', add));
      expect(error.code, JSON.stringify(add)).toBe(grpc.status.INVALID_ARGUMENT);
      expect(error.details).toMatch(/not allowed/);
    }
    expect(await docker.listContainers({ all: true, filters: { name: [`caps-evil-${suffix}`] } })).toEqual([]);
  });

  it('gives a request without capabilities (a control plane before contract 1.3.0) the set containers always had', async () => {
    const legacy = await make(base + 3, 'caps-legacy', undefined);
    expect((await legacy.container.inspect()).HostConfig?.CapAdd).toEqual(PREVIOUS_SET);
    const bounding = await boundingSet(legacy.container);
    expect(bounding).toBe(mask(PREVIOUS_SET));
    // Never the ones the old CapDrop took away.
    expect(bounding & mask(['NET_RAW', 'MKNOD', 'SETFCAP'])).toBe(0n);
  });

  it.skipIf(!canLogIn)('lets a student log in to the SSH image, also with a terminal, with SSH_IMAGE_CAPABILITIES only', async () => {
    const image = await ensureSshImage();
    const ssh = await make(base + 4, 'caps-ssh', [...SSH_IMAGE_CAPABILITIES], image, true);
    expect(await boundingSet(ssh.container)).toBe(mask(SSH_IMAGE_CAPABILITIES));
    const port = Number(ssh.labels['devplein.ssh-port']);
    const key = await sshKeyFile(stack.workDir, `caps-${suffix}`);
    await unaryCall(stack.ssh, stack.ssh.setAuthorizedKeys, { projectId: base + 4, keys: [{ userId: 1, publicKey: key.publicKey }] });
    await expectSshLogin(key.file, port);
    // A terminal login: dropbear hands /dev/pts/N to the student (chown, then chmod).
    const { stdout } = await execFileAsync(
      'bash',
      ['-c', `printf 'tty; exit\\n' | ssh -tt -i "$1" -p "$2" -o BatchMode=yes -o IdentitiesOnly=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR student@127.0.0.1`, 'ssh', key.file, String(port)],
      { timeout: 20_000 },
    );
    expect(stdout).toMatch(/\/dev\/pts\/\d+/);
  });
});

/**
 * The disk limit of project containers (AGENT_CONTAINER_DISK_LIMIT, issue 16). Docker limits a
 * container's writable layer only on storage that can: overlay2 on XFS mounted with project quota
 * (pquota), what a dev server uses (docs/operations.md, "Student containers"), or the btrfs driver (subvolume
 * qgroups). The shared test engine's data-root is on ext4, so each case here makes a file-system
 * image, loop-mounts it and runs a private dockerd with its data-root there; the agent's Docker
 * driver makes project containers on it exactly as on a dev server. A student who writes past the
 * limit gets "disk full" inside the container; the engine, the host and the other containers
 * carry on. On the shared (ext4) engine the same setting must fail with a message that says what
 * to do.
 *
 * XFS needs a kernel with XFS quota (CONFIG_XFS_QUOTA; Debian's kernels have it, the VMs these
 * tests were written on do not: "XFS (loop0): quota support not available in this kernel"). A
 * case whose kernel or tools cannot is skipped with that reason; at least one case must run.
 * Needs root (mount, losetup, dockerd), xfsprogs and btrfs-progs. Mounts, loop devices and
 * engines are removed in afterAll, also when a test failed.
 */
const execFileAsync = promisify(execFile);
const suffix = randomSuffix();
const LIMIT = 64 * 1024 * 1024;
const limits = { memoryBytes: 64 * 1024 * 1024, nanoCpus: 500_000_000, pids: 64 };

function spec(name: string, projectId: number, image: string): NewContainer {
  return { projectId, name, domain: `${name}.dev.test`, image, ownerUserId: 1, ssh: false, wordpress: false, limits, capabilities: [] };
}

/** Undoes a loop mount and its loop device (mount -o loop sets autoclear; losetup -d covers the rest). */
async function unmount(point: string, image: string): Promise<void> {
  await execFileAsync('umount', [point]).catch(() => execFileAsync('umount', ['-l', point]).catch(() => undefined));
  const { stdout } = await execFileAsync('losetup', ['-j', image]).catch(() => ({ stdout: '' }));
  for (const device of stdout.split('\n').map((line) => line.split(':')[0]).filter(Boolean)) {
    await execFileAsync('losetup', ['-d', device ?? '']).catch(() => undefined);
  }
}

interface Backend {
  name: string;
  /** Makes the file system in `image` and mounts it on `mountPoint`; a string says why it cannot here. */
  mount(image: string, mountPoint: string): Promise<string | undefined>;
  storageDriver?: string;
}

const backends: Backend[] = [
  {
    name: 'overlay2 on XFS mounted with pquota (as on a dev server)',
    async mount(image, mountPoint) {
      const mkfs = findExecutable('mkfs.xfs', ['/usr/sbin', '/sbin']);
      if (!mkfs) return 'mkfs.xfs is missing: apt-get install -y xfsprogs';
      await execFileAsync(mkfs, ['-q', image]);
      try {
        await execFileAsync('mount', ['-o', 'loop,pquota', image, mountPoint]);
        return undefined;
      } catch (error) {
        const { stdout } = await execFileAsync('dmesg').catch(() => ({ stdout: '' }));
        if (/quota support not available/.test(stdout.split('\n').slice(-20).join('\n'))) return 'this kernel has no XFS quota support (CONFIG_XFS_QUOTA)';
        throw error;
      }
    },
  },
  {
    name: 'the btrfs storage driver',
    storageDriver: 'btrfs',
    async mount(image, mountPoint) {
      const mkfs = findExecutable('mkfs.btrfs', ['/usr/sbin', '/sbin', '/usr/bin']);
      if (!mkfs) return 'mkfs.btrfs is missing: apt-get install -y btrfs-progs';
      await execFileAsync(mkfs, ['-q', image]);
      await execFileAsync('mount', ['-o', 'loop', image, mountPoint]);
      return undefined;
    },
  },
];

const proven: string[] = [];
const unavailable: string[] = [];

describe.each(backends)('a disk limit on $name', (backend) => {
  let workDir: string | undefined;
  let mountPoint: string | undefined;
  let engine: PrivateDockerd | undefined;
  let driver: EngineDockerDriver | undefined;
  let webImage: string;
  let skipReason: string | undefined;

  beforeAll(async () => {
    requireDockerEngine();
    if (process.getuid?.() !== 0) throw new Error('the disk limit test needs root (mount, losetup, a private dockerd)');
    workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-disk-limit-'));
    const image = path.join(workDir, 'fs.img');
    mountPoint = path.join(workDir, 'data-root');
    await mkdir(mountPoint);
    // Sparse: takes only what the engine writes (XFS wants at least 300 MB).
    await execFileAsync('truncate', ['-s', '512M', image]);
    skipReason = await backend.mount(image, mountPoint);
    if (skipReason) {
      unavailable.push(`${backend.name}: ${skipReason}`);
      return;
    }
    engine = await startPrivateDockerd({ dataRoot: mountPoint, ...(backend.storageDriver ? { storageDriver: backend.storageDriver } : {}) });
    webImage = await ensureWebImage(engine.host);
    driver = new EngineDockerDriver(new DockerEngine(engine.docker), {
      network: `devplein-disk-${suffix}`,
      httpPort: 80,
      publishAddress: '127.0.0.1',
      sshBindAddress: '127.0.0.1',
      diskLimitBytes: LIMIT,
    });
    await driver.ensureNetwork();
  });

  afterAll(async () => {
    try {
      await engine?.destroy();
    } finally {
      if (workDir && mountPoint) {
        await unmount(mountPoint, path.join(workDir, 'fs.img'));
        await rm(workDir, { recursive: true, force: true });
      }
    }
  });

  it('stops writes past the limit inside the container; the engine and other containers carry on', async (context) => {
    if (skipReason) context.skip(skipReason);
    if (!engine || !driver) throw new Error('no engine');
    const info = (await engine.docker.info()) as { Driver?: string; DriverStatus?: Array<[string, string]> };
    expect(diskLimitProblem(info)).toBeUndefined();

    const filler = await driver.create(spec(`filler-${suffix}`, 1, webImage));
    const inspect = await engine.docker.getContainer(filler.id).inspect();
    expect(inspect.HostConfig.StorageOpt).toEqual({ size: String(LIMIT) });

    // Under the limit: fine.
    const small = await driver.exec(filler.id, ['sh', '-c', 'dd if=/dev/zero of=/small bs=1M count=16 2>&1']);
    expect(small.exitCode, small.stdout).toBe(0);
    // Past it: the write fails in the container, and what landed stays under the limit.
    const big = await driver.exec(filler.id, ['sh', '-c', 'dd if=/dev/zero of=/big bs=1M count=200 2>&1; echo "dd-exit=$?"; sync; du -sk /big']);
    expect(big.stdout).toMatch(/No space left on device|Disk quota exceeded/);
    expect(big.stdout).not.toContain('dd-exit=0');
    const writtenKb = Number(/(\d+)\s+\/big/.exec(big.stdout)?.[1]);
    expect(writtenKb * 1024).toBeLessThanOrEqual(LIMIT);

    // The engine and a neighbour are unaffected: a new container starts and writes.
    expect(await engine.answers()).toBe(true);
    const neighbour = await driver.create(spec(`neighbour-${suffix}`, 2, webImage));
    const write = await driver.exec(neighbour.id, ['sh', '-c', 'dd if=/dev/zero of=/data bs=1M count=16 2>&1 && cat /www/index.html']);
    expect(write.exitCode, write.stdout).toBe(0);
    expect(write.stdout).toContain('devplein test page');
    // The full container still runs, and gets its space back when the student deletes the file.
    const freed = await driver.exec(filler.id, ['sh', '-c', 'rm /big && dd if=/dev/zero of=/again bs=1M count=16 2>&1']);
    expect(freed.exitCode, freed.stdout).toBe(0);
    proven.push(backend.name);
  });
});

describe('the disk limit proof', () => {
  it('ran on at least one storage that enforces it', () => {
    expect(proven, `no storage could enforce the limit here:\n${unavailable.join('\n')}`).not.toEqual([]);
  });
});

describe('a disk limit on an engine that cannot enforce it', () => {
  it('fails the create with a message naming the setting and what Docker needs', async (context) => {
    const shared = testDocker();
    const info = (await shared.info()) as { Driver?: string; DriverStatus?: Array<[string, string]> };
    // Only meaningful where the shared engine cannot (ext4 here and in CI).
    if (diskLimitProblem(info) === undefined) context.skip();
    const image = await ensureWebImage();
    const sharedNetwork = `devplein-disk-shared-${suffix}`;
    const onShared = new EngineDockerDriver(new DockerEngine(shared), { network: sharedNetwork, httpPort: 80, publishAddress: '127.0.0.1', sshBindAddress: '127.0.0.1', diskLimitBytes: LIMIT });
    try {
      await expect(onShared.create(spec(`refused-${suffix}`, 3, image))).rejects.toMatchObject({
        kind: 'failed-precondition',
        message: expect.stringMatching(/AGENT_CONTAINER_DISK_LIMIT.*XFS mounted with pquota/),
      });
      expect(await shared.listContainers({ all: true, filters: { name: [`refused-${suffix}`] } })).toEqual([]);
    } finally {
      await shared.getContainer(`refused-${suffix}`).remove({ force: true }).catch(() => undefined);
      await shared.getNetwork(sharedNetwork).remove().catch(() => undefined);
    }
  });
});

describe('an SSH port another program took before the start', () => {
  it('fails the create as SshPortTakenError naming the port, and leaves no container', async () => {
    requireDockerEngine();
    const shared = testDocker();
    const image = await ensureWebImage();
    const sharedNetwork = `devplein-port-taken-${suffix}`;
    const driver = new EngineDockerDriver(new DockerEngine(shared), { network: sharedNetwork, httpPort: 80, publishAddress: '127.0.0.1', sshBindAddress: '127.0.0.1' });
    // The port is held by a listener: the engine cannot bind it when the container starts.
    const listener = createServer();
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', () => resolve()));
    const port = (listener.address() as AddressInfo).port;
    const name = `taken-${suffix}`;
    try {
      await driver.ensureNetwork();
      const failure = await driver.create({ ...spec(name, 4, image), ssh: true, sshPort: port }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(SshPortTakenError);
      expect(failure).toMatchObject({ port, kind: 'unavailable' });
      expect(await shared.listContainers({ all: true, filters: { name: [name] } })).toEqual([]);
    } finally {
      listener.close();
      await shared.getContainer(name).remove({ force: true }).catch(() => undefined);
      await shared.getNetwork(sharedNetwork).remove().catch(() => undefined);
    }
  });
});
