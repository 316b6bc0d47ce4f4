/**
 * Proxy routes end to end: the real host agent (its own process, gRPC over mutual TLS) programs
 * a real Caddy through the admin API, and plain HTTP requests with a Host header prove where
 * Caddy sends visitors. The route keeper is checked against a real managed container on the
 * Docker engine: routes follow container events, come back after a Caddy restart, and a route
 * without a running container disappears.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyServiceClient, type Route } from '@devplein/proto/proxy';
import { CONTRACT_VERSION, CONTRACT_VERSION_METADATA_KEY } from '@devplein/proto/version';
import { listenForAccessLog } from '../../../host-agent/src/drivers/proxy/access-log-listener.ts';
import { SCREENSHOT_HEADER, accessLoggerPath, parseAccessLine } from '../../../host-agent/src/drivers/proxy/access-log.ts';
import { CaddyProxyDriver } from '../../../host-agent/src/drivers/proxy/caddy-proxy-driver.ts';
import { type ClientPems, makeTestCerts, readClientPems, startTestAgent, type TestAgent, type TestCerts } from '../../support/services/agent.ts';
import { startCaddy, type TestCaddy, visitSite } from '../../support/services/caddy.ts';
import { findFreePort, waitFor } from '../../support/clients/ports.ts';
import { ensureWebImage } from '../../support/services/docker.ts';

const suffix = randomBytes(4).toString('hex');
const docker = new Docker({ socketPath: process.env.DOCKER_SOCKET ?? '/var/run/docker.sock' });
/** The agent's own network: it only manages containers on it (others belong to other agents). */
const network = `devplein-test-proxy-${suffix}`;

let workDir: string;
let certs: TestCerts;
let pems: ClientPems;
let caddy: TestCaddy;
const agents: TestAgent[] = [];
const clients: ProxyServiceClient[] = [];
const upstreams: http.Server[] = [];
const containerNames: string[] = [];

/** A tiny upstream that answers every request with `text`. */
async function startUpstream(text: string): Promise<string> {
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/plain' });
    response.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstreams.push(server);
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** GET / on this file's Caddy as if the browser asked for `host`. */
function visit(host: string, port = caddy.httpPort): Promise<{ status: number; body: string }> {
  return visitSite(port, host);
}

function proxyClient(agent: TestAgent): ProxyServiceClient {
  const client = new ProxyServiceClient(agent.address, grpc.credentials.createSsl(pems.caPem, pems.keyPem, pems.certPem));
  clients.push(client);
  return client;
}

function metadata(): grpc.Metadata {
  const value = new grpc.Metadata();
  value.set(CONTRACT_VERSION_METADATA_KEY, CONTRACT_VERSION);
  return value;
}

type Unary<Request, Response> = (
  request: Request,
  metadata: grpc.Metadata,
  options: Partial<grpc.CallOptions>,
  callback: (error: grpc.ServiceError | null, response: Response) => void,
) => grpc.ClientUnaryCall;

function call<Request, Response>(client: ProxyServiceClient, method: Unary<Request, Response>, request: Request): Promise<Response> {
  return new Promise((resolve, reject) => {
    method.call(client, request, metadata(), { deadline: new Date(Date.now() + 10_000) }, (error, response) => (error ? reject(error) : resolve(response)));
  });
}

const proxy = (client: ProxyServiceClient) => ({
  upsert: (route: Route) => call(client, client.upsertRoute, { route }),
  remove: (domain: string) => call(client, client.removeRoute, { domain }),
  list: async () => (await call(client, client.listRoutes, {})).routes,
});

async function refusal(promise: Promise<unknown>): Promise<grpc.ServiceError> {
  try {
    await promise;
  } catch (error) {
    return error as grpc.ServiceError;
  }
  throw new Error('expected the call to be refused, but it succeeded');
}

/** The agent's pino lines, parsed. */
function logLines(agent: TestAgent): Array<Record<string, unknown>> {
  return agent
    .output()
    .split('\n')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

/** Starts an agent on our Caddy and waits for its start-up reconcile (so it cannot undo a test's change). */
async function startAgent(cron: string): Promise<TestAgent> {
  const agent = await startTestAgent({
    certDir: certs.dir,
    env: {
      LOG_LEVEL: 'debug',
      AGENT_CADDY_ADMIN: caddy.adminUrl,
      AGENT_CADDY_SERVER: caddy.serverName,
      AGENT_DOCKER_NETWORK: network,
      AGENT_DATA_DIR: path.join(workDir, 'data'),
      AGENT_PUBLISH_ADDRESS: '127.0.0.1',
      AGENT_SITE_DOMAIN: 'dev.test',
      AGENT_RECONCILE_CRON: cron,
    },
  });
  agents.push(agent);
  await waitFor(() => logLines(agent).some((line) => line.msg === 'route keeper: routes reconciled'), {
    description: 'the start-up reconcile',
    timeoutMs: 15_000,
  });
  return agent;
}

/** A container as the agent's container service makes one: managed labels, HTTP port published on loopback. */
async function createManagedContainer(image: string, projectId: number, domain: string): Promise<Docker.Container> {
  const name = `devplein-test-proxy-${projectId}-${suffix}`;
  containerNames.push(name);
  return docker.createContainer({
    name,
    Image: image,
    Labels: {
      'devplein.managed': 'true',
      'devplein.project-id': String(projectId),
      'devplein.domain': domain,
      'devplein.owner-id': '1',
      'devplein.ssh': 'false',
      'devplein.wordpress': 'false',
      'devplein.http-port': '80',
    },
    ExposedPorts: { '80/tcp': {} },
    HostConfig: { Init: true, NetworkMode: network, PortBindings: { '80/tcp': [{ HostIp: '127.0.0.1', HostPort: '' }] } },
  });
}

/** A running managed container; answers the upstream its HTTP port is published on ("127.0.0.1:port"). */
async function runningManagedUpstream(domain: string): Promise<string> {
  const container = await createManagedContainer(await ensureWebImage(), 700_000 + Math.floor(Math.random() * 99_999), domain);
  await container.start();
  const port = (await container.inspect()).NetworkSettings.Ports['80/tcp']?.[0]?.HostPort;
  if (!port) throw new Error('the container published no HTTP port');
  return `127.0.0.1:${port}`;
}

beforeAll(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-agent-proxy-'));
  certs = await makeTestCerts(path.join(workDir, 'certs'));
  pems = await readClientPems(certs.ca, certs.clientCert, certs.clientKey);
  caddy = await startCaddy();
  await docker.createNetwork({ Name: network, Driver: 'bridge', Labels: { 'devplein.test': 'true' } });
});

afterAll(async () => {
  for (const client of clients) client.close();
  await Promise.all(agents.map((agent) => agent.stop()));
  for (const name of containerNames) await docker.getContainer(name).remove({ force: true }).catch(() => undefined);
  await docker.getNetwork(network).remove().catch(() => undefined);
  for (const server of upstreams) server.close();
  await caddy?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('ProxyService on Caddy', () => {
  // A reconcile once a year: the routes of this block have no container of their domain and must stay put.
  let routes: ReturnType<typeof proxy>;
  const domain = `site-${suffix}.dev.test`;
  // Routes may only point at the published HTTP port of one of the agent's own containers.
  let first: string;
  let second: string;

  beforeAll(async () => {
    routes = proxy(proxyClient(await startAgent('0 0 1 1 *')));
    first = await runningManagedUpstream(`one-${suffix}.dev.test`);
    second = await runningManagedUpstream(`two-${suffix}.dev.test`);
  }, 60_000);

  it('routes a domain to its upstream, replaces it, lists it and removes it', async () => {
    const created = await routes.upsert({ domain: domain.toUpperCase(), upstream: first, projectId: 7 });
    expect(created).toEqual({ route: { domain, upstream: first, projectId: 7 }, created: true });
    expect(await visit(domain)).toEqual({ status: 200, body: 'devplein test page\n' });

    const replaced = await routes.upsert({ domain, upstream: second, projectId: 7 });
    expect(replaced.created).toBe(false);
    expect(await visit(domain)).toEqual({ status: 200, body: 'devplein test page\n' });
    const listed = (await routes.list()).filter((route) => route.domain === domain);
    expect(listed).toEqual([{ domain, upstream: second, projectId: 7 }]);

    expect(await routes.remove(domain)).toEqual({ removed: true });
    expect(await routes.remove(domain)).toEqual({ removed: false });
    expect((await routes.list()).some((route) => route.domain === domain)).toBe(false);
    expect(await visit(domain)).toEqual({ status: 404, body: 'Deze website bestaat niet (meer).' });
  });

  it('answers 404 for a host no project has, with the route of another domain in place', async () => {
    await routes.upsert({ domain: `other-${suffix}.dev.test`, upstream: first, projectId: 8 });
    const unknown = await visit(`unknown-${suffix}.dev.test`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toBe('Deze website bestaat niet (meer).');
    expect(await routes.remove(`other-${suffix}.dev.test`)).toEqual({ removed: true });
  });

  it('refuses bad domains and upstreams with INVALID_ARGUMENT', async () => {
    for (const bad of ['', 'not a domain', '*.dev.test', 'site.dev.test:80', 'site.dev.test/path', '-site.dev.test', 'sïte.dev.test']) {
      const error = await refusal(routes.upsert({ domain: bad, upstream: '127.0.0.1:8080', projectId: 1 }));
      expect(error.code, bad).toBe(grpc.status.INVALID_ARGUMENT);
    }
    for (const bad of ['', '127.0.0.1', 'http://127.0.0.1:80', '127.0.0.1:0', '127.0.0.1:70000', '{http.request.host}:80', 'host name:80']) {
      const error = await refusal(routes.upsert({ domain, upstream: bad, projectId: 1 }));
      expect(error.code, bad).toBe(grpc.status.INVALID_ARGUMENT);
    }
    expect((await refusal(routes.remove('no such domain'))).code).toBe(grpc.status.INVALID_ARGUMENT);
  });

  it('refuses a domain outside its site domain (INVALID_ARGUMENT) and an upstream that is none of its containers (PERMISSION_DENIED)', async () => {
    for (const outside of ['devplein.school.nl', 'dev.test', `site-${suffix}.dev.test.evil.nl`]) {
      expect((await refusal(routes.upsert({ domain: outside, upstream: first, projectId: 7 }))).code, outside).toBe(grpc.status.INVALID_ARGUMENT);
    }
    // A listener on the host that is not a container (the agent's own gRPC port, say), and a closed port.
    const notOurs = await startUpstream('not a container');
    for (const upstream of [notOurs, '127.0.0.1:2375', '10.0.0.5:80']) {
      const error = await refusal(routes.upsert({ domain, upstream, projectId: 7 }));
      expect(error.code, upstream).toBe(grpc.status.PERMISSION_DENIED);
    }
    expect((await routes.list()).some((route) => route.domain === domain || route.upstream === notOurs)).toBe(false);
  });

  it('answers UNAVAILABLE while Caddy is down, and works again when it is back', async () => {
    await caddy.stop();
    try {
      const listing = await refusal(routes.list());
      expect(listing.code).toBe(grpc.status.UNAVAILABLE);
      expect(listing.details).toContain(caddy.adminUrl);
      const upsert = await refusal(routes.upsert({ domain, upstream: first, projectId: 1 }));
      expect(upsert.code).toBe(grpc.status.UNAVAILABLE);
      expect((await refusal(routes.remove(domain))).code).toBe(grpc.status.UNAVAILABLE);
    } finally {
      await caddy.start();
    }
    expect(Array.isArray(await routes.list())).toBe(true);
  });

  it('follows container events without waiting for the schedule: start adds the route, stop removes it', async () => {
    const eventDomain = `event-${suffix}.dev.test`;
    const container = await createManagedContainer(await ensureWebImage(), 700_000 + Math.floor(Math.random() * 99_999), eventDomain);
    await container.start();
    await waitFor(async () => (await visit(eventDomain)).body === 'devplein test page\n', { description: 'the start event to add the route', timeoutMs: 10_000 });
    await container.stop({ t: 1 });
    await waitFor(async () => (await visit(eventDomain)).status === 404, { description: 'the die/stop event to remove the route', timeoutMs: 10_000 });
    await container.remove({ force: true });
  });
});

describe('CaddyProxyDriver on a Caddy without the agent’s server', () => {
  it('creates the server with automatic HTTPS off and the catch-all 404, then routes through it', async () => {
    const other = await startCaddy({ serverName: 'sysadmin' });
    try {
      const listenPort = await findFreePort();
      const driver = new CaddyProxyDriver({ adminUrl: other.adminUrl, server: 'devplein', listen: `127.0.0.1:${listenPort}` });
      expect(await driver.listRoutes()).toEqual([]);
      const upstream = await startUpstream('made here');
      expect(await driver.upsertRoute({ domain: 'made.dev.test', upstream, projectId: 3 })).toEqual({ created: true });
      await driver.ensureServer();
      const server = (await (await fetch(`${other.adminUrl}/config/apps/http/servers/devplein`)).json()) as {
        listen: string[];
        automatic_https: { disable: boolean };
        routes: Array<{ '@id': string }>;
      };
      expect(server.listen).toEqual([`127.0.0.1:${listenPort}`]);
      expect(server.automatic_https.disable).toBe(true);
      expect(server.routes.map((route) => route['@id'])).toEqual(['devplein-route-made_dev_test', 'devplein-catch-all']);
      expect(await visit('made.dev.test', listenPort)).toEqual({ status: 200, body: 'made here' });
      expect(await visit('nothing.dev.test', listenPort)).toEqual({ status: 404, body: 'Deze website bestaat niet (meer).' });

      // A server the sysadmin made without routes, or with an empty list, gets the catch-all too.
      for (const [name, routes] of [['bare', undefined], ['empty', []]] as const) {
        const port = await findFreePort();
        const response = await fetch(`${other.adminUrl}/config/apps/http/servers/${name}`, {
          method: 'PUT',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ listen: [`127.0.0.1:${port}`], automatic_https: { disable: true }, routes }),
        });
        expect(response.status, await response.text()).toBe(200);
        const own = new CaddyProxyDriver({ adminUrl: other.adminUrl, server: name, listen: 'unused:1' });
        expect(await own.upsertRoute({ domain: `${name}.dev.test`, upstream, projectId: 4 })).toEqual({ created: true });
        expect(await visit(`${name}.dev.test`, port)).toEqual({ status: 200, body: 'made here' });
        expect((await visit('nothing.dev.test', port)).status).toBe(404);
      }
    } finally {
      await other.stop();
    }
  });
});

describe('CaddyProxyDriver with many changes at once', () => {
  it('writes upserts that queued up together, the later route of a domain winning, and never moves one ahead of a removal', async () => {
    const own = await startCaddy({ serverName: 'sysadmin' });
    try {
      const port = await findFreePort();
      const driver = new CaddyProxyDriver({ adminUrl: own.adminUrl, server: 'devplein', listen: `127.0.0.1:${port}` });
      const [old, fresh] = await Promise.all([startUpstream('old'), startUpstream('fresh')]);
      expect(await driver.upsertRoute({ domain: 'kept.dev.test', upstream: old, projectId: 1 })).toEqual({ created: true });

      // Issued together: the first goes out alone, the rest queue behind it and go out as one write.
      const domains = Array.from({ length: 12 }, (_, index) => `site${index}.dev.test`);
      const answers = await Promise.all([
        ...domains.map((domain, index) => driver.upsertRoute({ domain, upstream: old, projectId: 10 + index })),
        driver.upsertRoute({ domain: 'kept.dev.test', upstream: fresh, projectId: 1 }),
        driver.upsertRoute({ domain: 'twice.dev.test', upstream: old, projectId: 2 }),
        driver.upsertRoute({ domain: 'twice.dev.test', upstream: fresh, projectId: 2 }),
      ]);
      expect(answers.slice(0, domains.length).every((answer) => answer.created)).toBe(true);
      expect(answers[domains.length]).toEqual({ created: false });
      for (const domain of domains) expect(await visit(domain, port)).toEqual({ status: 200, body: 'old' });
      expect(await visit('kept.dev.test', port)).toEqual({ status: 200, body: 'fresh' });
      expect(await visit('twice.dev.test', port)).toEqual({ status: 200, body: 'fresh' });

      // Upsert, remove, upsert of one domain (and upsert, remove of another), none awaited: they happen in that order.
      const ordered = await Promise.all([
        driver.upsertRoute({ domain: 'back.dev.test', upstream: old, projectId: 3 }),
        driver.upsertRoute({ domain: 'gone.dev.test', upstream: old, projectId: 4 }),
        driver.removeRoute('back.dev.test'),
        driver.removeRoute('gone.dev.test'),
        driver.upsertRoute({ domain: 'back.dev.test', upstream: fresh, projectId: 3 }),
      ]);
      expect(ordered).toEqual([{ created: true }, { created: true }, true, true, { created: true }]);
      expect(await visit('back.dev.test', port)).toEqual({ status: 200, body: 'fresh' });
      expect((await visit('gone.dev.test', port)).status).toBe(404);

      const server = (await (await fetch(`${own.adminUrl}/config/apps/http/servers/devplein`)).json()) as { routes: Array<{ '@id': string }> };
      const ids = server.routes.map((route) => route['@id']);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.at(-1)).toBe('devplein-catch-all');
      expect(ids).toHaveLength(domains.length + 4);
    } finally {
      await own.stop();
    }
  });
});

describe('CaddyProxyDriver and the access log of the idle auto-stop', () => {
  it("sends the server's access log to the agent over UDP, keeps it out of Caddy's own log, restores it after a restart and takes it out when off", async () => {
    const own = await startCaddy();
    const lines: string[] = [];
    const listener = await listenForAccessLog('127.0.0.1:0', (line) => lines.push(line));
    const logging = async () => (await (await fetch(`${own.adminUrl}/config/logging`)).json()) as unknown;
    try {
      const before = await logging();
      const driver = new CaddyProxyDriver({ adminUrl: own.adminUrl, server: own.serverName, listen: 'unused:1', accessLogAddress: listener.address });
      await driver.ensureServer();
      const upstream = await startUpstream('bezocht');
      await driver.upsertRoute({ domain: 'visited.dev.test', upstream, projectId: 5 });
      // Caddy closes kept-alive connections when it loads a config: the first visit may need a second try.
      await waitFor(async () => (await visitSite(own.httpPort, 'Visited.dev.test:80')).status === 200, { description: 'the route', timeoutMs: 10_000 });
      await new Promise<void>((resolve, reject) => {
        const request = http.get({ host: '127.0.0.1', port: own.httpPort, path: '/', headers: { Host: 'visited.dev.test', [SCREENSHOT_HEADER]: 'token-of-this-run' } }, (response) => {
          response.resume();
          response.on('end', resolve);
        });
        request.on('error', reject);
      });
      expect((await visitSite(own.httpPort, 'unknown.dev.test')).status).toBe(404);
      const loggerPath = accessLoggerPath(own.serverName);
      await waitFor(() => lines.map((line) => parseAccessLine(line, loggerPath, 'token-of-this-run')).filter(Boolean).length >= 3, { description: 'three access lines', timeoutMs: 10_000 });
      const requests = lines.map((line) => parseAccessLine(line, loggerPath, 'token-of-this-run'));
      expect(requests).toContainEqual({ host: 'visited.dev.test', fromScreenshotter: false });
      expect(requests).toContainEqual({ host: 'visited.dev.test', fromScreenshotter: true });
      expect(requests).toContainEqual({ host: 'unknown.dev.test', fromScreenshotter: false });
      // The 404 is an error-level line in Caddy 2.6, yet Caddy's own (WARN) log did not get it.
      expect(own.output()).not.toContain('http.log.access');

      // A restarted Caddy has only its file config: ensureServer (the route keeper's reconcile) puts the log back.
      await own.stop();
      await own.start();
      await driver.ensureServer();
      const count = lines.length;
      await waitFor(async () => (await visitSite(own.httpPort, 'again.dev.test').catch(() => ({ status: 0 }))).status === 404 && lines.length > count, {
        description: 'access lines after the restart',
        timeoutMs: 10_000,
      });

      // Off: Caddy's logging is as it was before, and the server logs no more.
      await new CaddyProxyDriver({ adminUrl: own.adminUrl, server: own.serverName, listen: 'unused:1' }).ensureServer();
      expect(await logging()).toEqual(before);
      expect(await (await fetch(`${own.adminUrl}/config/apps/http/servers/${own.serverName}/logs`)).json()).toBeNull();
    } finally {
      await listener.close();
      await own.stop();
    }
  });
});

describe('route keeper', () => {
  let agent: TestAgent;
  let routes: ReturnType<typeof proxy>;
  let container: Docker.Container;
  const domain = `kept-${suffix}.dev.test`;
  const projectId = 900_000 + Math.floor(Math.random() * 99_999);

  const routeOf = async (name: string) => (await routes.list()).find((route) => route.domain === name);
  const waitForVisit = (host: string, expected: { status: number; body: string }, description: string) =>
    waitFor(
      async () => {
        const answer = await visit(host);
        return answer.status === expected.status && answer.body === expected.body;
      },
      { description, timeoutMs: 15_000, intervalMs: 200 },
    );

  beforeAll(async () => {
    for (const old of agents.splice(0)) await old.stop();
    const image = await ensureWebImage();
    // Every second (six fields): the reconcile is what these tests watch.
    agent = await startAgent('* * * * * *');
    routes = proxy(proxyClient(agent));
    container = await createManagedContainer(image, projectId, domain);
  });

  it('adds the route when a managed container starts and removes it when it stops', async () => {
    await container.start();
    await waitForVisit(domain, { status: 200, body: 'devplein test page\n' }, 'the started container to be reachable through Caddy');
    const port = (await container.inspect()).NetworkSettings.Ports['80/tcp']?.[0]?.HostPort;
    expect(await routeOf(domain)).toEqual({ domain, upstream: `127.0.0.1:${port}`, projectId });

    await container.stop({ t: 1 });
    await waitForVisit(domain, { status: 404, body: 'Deze website bestaat niet (meer).' }, 'the stopped container to lose its route');

    await container.start();
    await waitForVisit(domain, { status: 200, body: 'devplein test page\n' }, 'the restarted container to be reachable again');
    const newPort = (await container.inspect()).NetworkSettings.Ports['80/tcp']?.[0]?.HostPort;
    expect((await routeOf(domain))?.upstream).toBe(`127.0.0.1:${newPort}`);
  });

  it('restores the routes after Caddy restarts without them', async () => {
    // No 404 check between start and restore: a reconcile tick (every second) may come first.
    // That Caddy came back without the route shows in the keeper having to add it.
    const linesBefore = logLines(agent).length;
    await caddy.stop();
    await caddy.start();
    await waitForVisit(domain, { status: 200, body: 'devplein test page\n' }, 'the reconcile to restore the route after the Caddy restart');
    // The reconcile logs once all its routes are back, which can be after this domain's route answers.
    const restoredLines = () =>
      logLines(agent)
        .slice(linesBefore)
        .filter((line) => line.msg === 'route keeper: routes reconciled' && typeof line.added === 'number' && line.added > 0);
    await waitFor(() => restoredLines().length > 0, { description: 'the reconcile that restored the routes to log', timeoutMs: 10_000 });
    const restored = restoredLines();
    expect(restored.at(-1)).toMatchObject({ updated: expect.any(Number), removed: expect.any(Number) });
  });

  it('fixes a wrong upstream and removes the route of a domain without a running container', async () => {
    const ghost = `ghost-${suffix}.dev.test`;
    const stray = await startUpstream('stray');
    // Drift in Caddy itself (the agent's ProxyService would refuse an upstream that is no container of its own).
    const driver = new CaddyProxyDriver({ adminUrl: caddy.adminUrl, server: caddy.serverName, listen: 'unused:1' });
    await driver.upsertRoute({ domain: ghost, upstream: stray, projectId: 4242 });
    await driver.upsertRoute({ domain, upstream: stray, projectId });
    await waitFor(async () => (await routeOf(ghost)) === undefined, { description: 'the reconcile to remove the ghost route', timeoutMs: 15_000 });
    await waitForVisit(domain, { status: 200, body: 'devplein test page\n' }, 'the reconcile to point the route back at the container');
    expect(await visit(ghost)).toEqual({ status: 404, body: 'Deze website bestaat niet (meer).' });
  });

  it('removes the route when the container is removed', async () => {
    await container.remove({ force: true });
    await waitFor(async () => (await routeOf(domain)) === undefined, { description: 'the route of the removed container to go', timeoutMs: 15_000 });
  });
});
