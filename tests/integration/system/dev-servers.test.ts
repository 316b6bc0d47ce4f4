/**
 * Two dev servers (AGENT_LINKS_FILE): a real control plane with two fake agents, dev1 and dev2,
 * each with its own site domain, SSH host, VPN endpoint and student database address. Proves
 * that a project's domain decides its dev server and every container call goes there, that an
 * approved project cannot be moved to the other server, that one server being down leaves the
 * other usable, and that a student's databases and VPN configuration live on one server.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseJson } from '@devplein/contract/access';
import type { ErrorJson } from '@devplein/contract/http/errors';
import { healthJson, type HealthJson } from '@devplein/contract/http/health';
import { createTestDatabase, type TestDatabase } from '../../support/services/database.ts';
import { seedDemoData } from '../../../control-plane/src/db/seed.ts';
import { startControlPlane, type RunningControlPlane } from '../../support/services/control-plane.ts';
import { signedInSessions } from '../../support/clients/http-session.ts';
import { agentCertEnv, makeTestCerts } from '../../support/services/agent.ts';
import { startFakeAgent, type FakeAgent } from '../../support/fakes/fake-agent.ts';
import { waitFor } from '../../support/clients/ports.ts';
import type { AdminDocker, ScreenshotState, UserDocker } from '@devplein/contract/dockers';
import { requestScreenshot, screenshotState } from '@devplein/contract/http/admin-dockers';
import { call, send } from '../../support/clients/endpoint-calls.ts';

const ADMIN = 'admin@devplein.test';
const DEVELOPER = 'ontwikkelaar@devplein.test';
const STUDENT = 'student@devplein.test';
const PHP_IMAGE = 2;

type HostName = 'dev1' | 'dev2';

/** What each dev server is: its entry in the links file and what its fake agent reports. */
const SERVERS = {
  dev1: { siteDomain: 'dev.devplein.test', studentDbHost: '10.8.0.1', sshHost: 'ssh.dev1.devplein.test', vpnEndpoint: 'vpn.dev1.devplein.test:51820' },
  dev2: { siteDomain: 'dev2.devplein.test', studentDbHost: '10.9.0.1', sshHost: 'ssh.dev2.devplein.test', vpnEndpoint: 'vpn.dev2.devplein.test:51820' },
} as const;

const OUTSIDE_MESSAGE = 'Het domein moet eindigen op .dev.devplein.test of .dev2.devplein.test.';
const MOVE_REFUSED = 'Dit domein hoort bij ontwikkelserver dev2, maar dit project staat op dev1. Kies een domein dat eindigt op .dev.devplein.test.';
const UNREACHABLE = 'onbereikbaar';
const UNREACHABLE_MESSAGE = 'De dockerserver is op dit moment niet bereikbaar. Probeer het zo opnieuw.';
/** Tests that wait for the health monitor (a check every 5 s, backing off to 10 s while down). */
const MONITOR_TIMEOUT_MS = 60_000;

let certDir: string;
let database: TestDatabase;
let app: RunningControlPlane;
const agents = {} as Record<HostName, FakeAgent>;

beforeAll(async () => {
  certDir = mkdtempSync(path.join(os.tmpdir(), 'devplein-dev-servers-'));
  const certs = await makeTestCerts(certDir);
  database = await createTestDatabase();
  await seedDemoData(database.knex);
  for (const name of ['dev1', 'dev2'] as const) {
    const server = SERVERS[name];
    agents[name] = await startFakeAgent({ certs, sshHost: server.sshHost, siteDomain: server.siteDomain });
    agents[name].vpnServer = { ...agents[name].vpnServer, endpoint: server.vpnEndpoint };
  }
  const linksFile = path.join(certDir, 'agents.json');
  const links = (['dev1', 'dev2'] as const).map((name) => ({
    name,
    address: agents[name].address,
    siteDomain: SERVERS[name].siteDomain,
    studentDbHost: SERVERS[name].studentDbHost,
    // dev2's MariaDB on another port: each database says its own server's port.
    ...(name === 'dev2' ? { studentDbPort: 3316 } : {}),
  }));
  writeFileSync(linksFile, JSON.stringify(links));
  app = await startControlPlane({
    databaseUrl: database.url,
    env: {
      AGENT_LINKS_FILE: linksFile,
      // New projects, databases and VPN configurations: the second dev server.
      SITE_DOMAIN: SERVERS.dev2.siteDomain,
      // startControlPlane sets one; empty is unset: the links file alone names the agents.
      AGENT_ADDRESS: '',
      ...agentCertEnv(certs),
      PROJECT_QUOTA: '20',
      // Its calls would land in the per-server call lists these tests compare (see hosting-stack.ts).
      UNAPPROVED_RECONCILE_CRON: '0 0 1 1 *',
      // One capture at a time per dev server: shows the queues are per server.
      THUMBNAIL_CONCURRENCY: '1',
    },
  });
  await waitForHosts({ dev1: 'reachable', dev2: 'reachable' });
});

afterAll(async () => {
  await app?.stop();
  for (const agent of Object.values(agents)) await agent.stop();
  await database?.destroy();
  if (certDir) rmSync(certDir, { recursive: true, force: true });
});

const as = signedInSessions(() => app.url);

async function userId(email: string): Promise<number> {
  const row = await database.knex('users').where({ email }).first<{ id: number }>('id');
  return Number(row.id);
}

async function health(): Promise<{ status: number; body: HealthJson }> {
  const response = await fetch(`${app.url}/healthz`);
  return { status: response.status, body: healthJson.parse(await response.json()) };
}

/** Waits until /healthz reports these link states (the health monitor checks every few seconds). */
async function waitForHosts(states: Record<HostName, string>): Promise<void> {
  const wanted = JSON.stringify([
    { name: 'dev1', state: states.dev1 },
    { name: 'dev2', state: states.dev2 },
  ]);
  await waitFor(async () => JSON.stringify((await health()).body.hosts.map(({ name, state }) => ({ name, state }))) === wanted, {
    description: `/healthz hosts ${wanted}`,
    timeoutMs: MONITOR_TIMEOUT_MS - 10_000,
    intervalMs: 250,
  });
}

/** A valid project request body. */
function projectRequest(name: string, domain: string): Record<string, unknown> {
  return {
    name,
    domain,
    docker_id: PHP_IMAGE,
    description: `Testproject ${name} om te zien op welke ontwikkelserver het terechtkomt.`,
    visible: '1',
    users: [],
    repro: '',
    end_date: '',
  };
}

const domainOn = (host: HostName, name: string): string => `${name}.${SERVERS[host].siteDomain}`;

/** POST /api/user/project as the demo student; answers the new project's id. */
async function requestProject(name: string, host: HostName): Promise<{ id: number; name: string }> {
  const { status, body } = await (await as(STUDENT)).json<{ id: number }>('POST', '/api/user/project', projectRequest(name, domainOn(host, name)));
  expect(status, `request of ${name}`).toBe(201);
  return { id: body.id, name };
}

async function projectRow(id: number): Promise<{ host: string | null; domain: string; validated: boolean | null }> {
  return database.knex('projects').where({ id }).first('host', 'domain', 'validated');
}

/** The admin's approve/reject toggle; answers the new state. */
async function toggleApproval(id: number): Promise<boolean> {
  const { status, body } = await (await as(ADMIN)).json<{ validated: boolean }>('PUT', `/api/admin/projects/${id}`, {});
  expect(status).toBe(200);
  return body.validated;
}

/** The project id a container call was about (by projectId, or a ContainerRef of one). */
function projectIdOf(request: unknown): number | undefined {
  const call = request as { projectId?: number; container?: { ref?: { $case: string; value: unknown } } };
  if (typeof call.projectId === 'number') return call.projectId;
  return call.container?.ref?.$case === 'projectId' ? Number(call.container.ref.value) : undefined;
}

/** The projects for which `agent` received `method`, in order. */
const projectIdsCalled = (agent: FakeAgent, method: string): Array<number | undefined> => agent.callsOf(method).map((call) => projectIdOf(call.request));

async function userDockers(email: string): Promise<UserDocker[]> {
  const { status, body } = await (await as(email)).json<UserDocker[]>('GET', '/api/user/dockers');
  expect(status).toBe(200);
  return body;
}

const card = (list: UserDocker[], name: string): UserDocker | undefined => list.find((item) => item.project.name === name);
const adminRow = (rows: AdminDocker[], name: string): AdminDocker | undefined => rows.find((row) => row.Names[0] === `/${name}`);

async function databases(email: string): Promise<DatabaseJson[]> {
  const { status, body } = await (await as(email)).json<DatabaseJson[]>('GET', '/api/user/databases');
  expect(status).toBe(200);
  return body;
}

async function createDatabase(email: string, db: string): Promise<DatabaseJson> {
  const { status, body } = await (await as(email)).json<DatabaseJson[]>('POST', '/api/user/databases', { db });
  expect(status, `database ${db} of ${email}`).toBe(200);
  const name = `u${await userId(email)}_${db}`;
  const created = body.find((row) => row.name === name);
  expect(created).toBeDefined();
  return created as DatabaseJson;
}

/** The databases a fake agent holds now. */
const databaseNames = (host: HostName): string[] => [...agents[host].databases.keys()];

// The projects of the placement tests, used by the later ones.
let onDev1: { id: number; name: string };
let onDev2: { id: number; name: string };

describe('project placement by domain', () => {
  it('tells the request form every site domain, and the one new projects are filled in with', async () => {
    const page = await (await as(STUDENT)).raw('/dockers/create');
    const html = await page.text();
    expect(html).toContain(`<meta name="site-domain" content="${SERVERS.dev2.siteDomain}" />`);
    expect(html).toContain(`<meta name="site-domains" content="${SERVERS.dev1.siteDomain} ${SERVERS.dev2.siteDomain}" />`);
  });

  it('stores the dev server whose site domain holds the domain', async () => {
    onDev1 = await requestProject('plaats-een', 'dev1');
    onDev2 = await requestProject('plaats-twee', 'dev2');
    expect(await projectRow(onDev1.id)).toMatchObject({ host: 'dev1', domain: 'plaats-een.dev.devplein.test' });
    expect(await projectRow(onDev2.id)).toMatchObject({ host: 'dev2', domain: 'plaats-twee.dev2.devplein.test' });
  });

  it('refuses a domain under neither site domain with a 422 that names both, and stores nothing', async () => {
    const { status, body } = await (await as(STUDENT)).json<ErrorJson>('POST', '/api/user/project', projectRequest('nergens', 'nergens.elders.devplein.test'));
    expect(status).toBe(422);
    expect(body.message).toBe(OUTSIDE_MESSAGE);
    expect(body.errors?.domain).toEqual([OUTSIDE_MESSAGE]);
    expect(await database.knex('projects').where({ name: 'nergens' }).first()).toBeUndefined();
  });

  it('creates each approved project’s container on its own dev server only', async () => {
    expect(await toggleApproval(onDev1.id)).toBe(true);
    expect(await toggleApproval(onDev2.id)).toBe(true);
    const student = await as(STUDENT);
    for (const [project, host] of [[onDev1, 'dev1'], [onDev2, 'dev2']] as const) {
      const { status, body } = await student.json<UserDocker[]>('POST', '/api/user/dockers', { id: project.id });
      expect(status, project.name).toBe(200);
      expect(body[0]).toMatchObject({ State: 'running', Names: [`/${project.name}`] });
      // GetSshAccess was answered by the project's own agent: its SSH host.
      expect(body[0]?.sshCommand).toMatch(new RegExp(`^ssh student@${SERVERS[host].sshHost.replaceAll('.', '\\.')} -p \\d+$`));
    }
    expect([...agents.dev1.containers.keys()]).toEqual([onDev1.name]);
    expect([...agents.dev2.containers.keys()]).toEqual([onDev2.name]);
    expect(projectIdsCalled(agents.dev1, 'createContainer')).toEqual([onDev1.id]);
    expect(projectIdsCalled(agents.dev2, 'createContainer')).toEqual([onDev2.id]);
    // The members' SSH keys went to the container's own server as well.
    expect([...agents.dev1.authorizedKeys.keys()]).toEqual([onDev1.id]);
    expect([...agents.dev2.authorizedKeys.keys()]).toEqual([onDev2.id]);
  });

  it('sends a lifecycle action to the project’s dev server only', async () => {
    const stopped = await (await as(STUDENT)).json<UserDocker[]>('PUT', `/api/user/dockers/${onDev1.id}?action=stop`);
    expect(stopped).toMatchObject({ status: 200, body: [{ State: 'exited', Names: [`/${onDev1.name}`] }] });
    expect(projectIdsCalled(agents.dev1, 'changeContainerState')).toEqual([onDev1.id]);
    expect(agents.dev2.callsOf('changeContainerState')).toEqual([]);
    expect(agents.dev1.containers.get(onDev1.name)?.state).toBe('exited');
    expect(agents.dev2.containers.get(onDev2.name)?.state).toBe('running');
  });
});

describe('moving a project to the other dev server', () => {
  const moveTo = async (project: { id: number; name: string }, domain: string) =>
    (await as(STUDENT)).json<ErrorJson & { domain?: string }>('PUT', `/api/user/project/${project.id}`, projectRequest(project.name, domain));

  it('refuses an approved project a domain of the other dev server, and changes nothing', async () => {
    const { status, body } = await moveTo(onDev1, domainOn('dev2', onDev1.name));
    expect(status).toBe(422);
    expect(body.message).toBe(MOVE_REFUSED);
    expect(body.errors).toEqual({ domain: [MOVE_REFUSED] });
    expect(await projectRow(onDev1.id)).toEqual({ host: 'dev1', domain: domainOn('dev1', onDev1.name), validated: true });
  });

  it('refuses it too for a project that was approved once and is rejected now (its container may still be there)', async () => {
    const once = await requestProject('eens-goedgekeurd', 'dev1');
    expect(await toggleApproval(once.id)).toBe(true);
    expect(await toggleApproval(once.id)).toBe(false);
    const { status, body } = await moveTo(once, domainOn('dev2', once.name));
    expect(status).toBe(422);
    expect(body.errors).toEqual({ domain: [MOVE_REFUSED] });
    expect(await projectRow(once.id)).toEqual({ host: 'dev1', domain: domainOn('dev1', once.name), validated: false });
  });

  it('lets a never-approved request move freely: its host follows the domain', async () => {
    const fresh = await requestProject('nog-vrij', 'dev1');
    const there = await moveTo(fresh, domainOn('dev2', fresh.name));
    expect(there.status).toBe(200);
    expect(there.body.domain).toBe(domainOn('dev2', fresh.name));
    expect(await projectRow(fresh.id)).toEqual({ host: 'dev2', domain: domainOn('dev2', fresh.name), validated: null });
    const back = await moveTo(fresh, domainOn('dev1', fresh.name));
    expect(back.status).toBe(200);
    expect(await projectRow(fresh.id)).toEqual({ host: 'dev1', domain: domainOn('dev1', fresh.name), validated: null });
  });
});

describe('one dev server down', () => {
  let dev2Down = false;

  beforeAll(async () => {
    await agents.dev2.stop();
    dev2Down = true;
  });

  afterAll(async () => {
    // Whatever happened, the next tests need dev2 back.
    if (dev2Down) await agents.dev2.start();
  });

  it('shows the student the projects on dev1 in their real state and those on dev2 as onbereikbaar', async () => {
    const list = await userDockers(STUDENT);
    expect(card(list, onDev1.name)).toMatchObject({ State: 'exited', Id: agents.dev1.containers.get(onDev1.name)?.id });
    expect(card(list, onDev2.name)).toMatchObject({ State: UNREACHABLE, Id: null });
  });

  it('still runs actions on dev1; an action on a dev2 project answers 503', async () => {
    const student = await as(STUDENT);
    const started = await student.json<UserDocker[]>('PUT', `/api/user/dockers/${onDev1.id}?action=start`);
    expect(started).toMatchObject({ status: 200, body: [{ State: 'running', Names: [`/${onDev1.name}`] }] });
    expect(agents.dev1.containers.get(onDev1.name)?.state).toBe('running');
    const refused = await student.json<ErrorJson>('PUT', `/api/user/dockers/${onDev2.id}?action=stop`);
    expect(refused).toEqual({ status: 503, body: { message: UNREACHABLE_MESSAGE } });
  });

  it('lists the admin every dev1 container and the dev2 projects as onbereikbaar rows (200, not 503)', async () => {
    const { status, body } = await (await as(ADMIN)).json<AdminDocker[]>('GET', '/api/admin/dockers');
    expect(status).toBe(200);
    expect(adminRow(body, onDev1.name)).toMatchObject({ host: 'dev1', State: 'running', projectId: onDev1.id });
    expect(adminRow(body, onDev2.name)).toMatchObject({ host: 'dev2', State: UNREACHABLE, projectId: onDev2.id });
    expect(body.filter((row) => row.host === 'dev2').every((row) => row.State === UNREACHABLE)).toBe(true);
  });

  it('reports /healthz degraded with dev1 reachable and dev2 unreachable', { timeout: MONITOR_TIMEOUT_MS }, async () => {
    await waitForHosts({ dev1: 'reachable', dev2: 'unreachable' });
    const { status, body } = await health();
    expect(status).toBe(200);
    expect(body).toMatchObject({
      status: 'degraded',
      database: 'up',
      agent: { state: 'reachable' },
      hosts: [
        { name: 'dev1', state: 'reachable' },
        { name: 'dev2', state: 'unreachable' },
      ],
    });
  });

  it('recovers when dev2 is back: healthz ok and the real state of its container', { timeout: MONITOR_TIMEOUT_MS + 30_000 }, async () => {
    await agents.dev2.start();
    dev2Down = false;
    await waitForHosts({ dev1: 'reachable', dev2: 'reachable' });
    expect((await health()).body.status).toBe('ok');
    await waitFor(async () => card(await userDockers(STUDENT), onDev2.name)?.State === 'running', {
      description: 'the dev2 project to show its running container again',
      timeoutMs: 30_000,
      intervalMs: 250,
    });
    const { status, body } = await (await as(ADMIN)).json<AdminDocker[]>('GET', '/api/admin/dockers');
    expect(status).toBe(200);
    expect(adminRow(body, onDev2.name)).toMatchObject({ host: 'dev2', State: 'running', Id: agents.dev2.containers.get(onDev2.name)?.id });
  });
});

describe('databases and VPN configurations', () => {
  it('puts a new developer’s first database on the dev server of SITE_DOMAIN (dev2) with dev2’s address', async () => {
    const olgaId = await userId(DEVELOPER);
    const created = await createDatabase(DEVELOPER, 'abc');
    expect(created).toMatchObject({ name: `u${olgaId}_abc`, user: `u${olgaId}_abc`, host: SERVERS.dev2.studentDbHost, port: 3316 });
    expect(databaseNames('dev2')).toEqual([`u${olgaId}_abc`]);
    expect(databaseNames('dev1')).toEqual([]);
    expect(agents.dev1.callsOf('createDatabase')).toEqual([]);
    expect(await database.knex('databases').where({ id: created.id }).first('host')).toEqual({ host: 'dev2' });
  });

  it('makes that developer’s VPN configuration on the same dev server, and its file names dev2’s VPN server', async () => {
    const olga = await as(DEVELOPER);
    const { status, body } = await olga.json<{ identifier: string }>('POST', '/api/vpn');
    expect(status).toBe(200);
    const row = await database.knex('vpn_configs').where({ identifier: body.identifier }).first('host', 'public_key');
    expect(row.host).toBe('dev2');
    expect([...agents.dev2.peers.keys()]).toEqual([row.public_key]);
    expect(agents.dev1.peers.size).toBe(0);
    expect(agents.dev1.callsOf('createPeer')).toEqual([]);

    const infoCallsOnDev1 = agents.dev1.callsOf('getServerInfo').length;
    const file = await olga.raw(`/api/vpn/${body.identifier}`);
    expect(file.status).toBe(200);
    const text = await file.text();
    expect(text).toContain(`Endpoint = ${SERVERS.dev2.vpnEndpoint}\n`);
    expect(text).toContain(`PublicKey = ${agents.dev2.vpnServer.publicKey}\n`);
    expect(agents.dev1.callsOf('getServerInfo')).toHaveLength(infoCallsOnDev1);
  });

  it('puts the databases of a developer whose VPN configuration is on dev1 on dev1, with dev1’s address', async () => {
    const annaId = await userId(ADMIN);
    // The same tunnel address as the developer's peer on dev2: each dev server has its own pool,
    // so an address is unique per server only.
    const dev2Address = ((await database.knex('vpn_configs').where({ host: 'dev2' }).first('address')) as { address: string }).address;
    await database.knex('vpn_configs').insert({
      user_id: annaId,
      address: dev2Address,
      public_key: 'dGVzdHNsZXV0ZWwtdmFuLWFubmEtb3AtZGV2MS0wMDA=',
      private_key_encrypted: null,
      host: 'dev1',
    });
    const created = await createDatabase(ADMIN, 'abc');
    expect(created).toMatchObject({ name: `u${annaId}_abc`, host: SERVERS.dev1.studentDbHost, port: 3306 });
    expect(databaseNames('dev1')).toEqual([`u${annaId}_abc`]);
    expect(databaseNames('dev2')).not.toContain(`u${annaId}_abc`);
    expect(await database.knex('databases').where({ id: created.id }).first('host')).toEqual({ host: 'dev1' });
  });

  it('drops each database on its own dev server', async () => {
    const [olgas] = await databases(DEVELOPER);
    const [annas] = await databases(ADMIN);
    expect((await (await as(DEVELOPER)).json('DELETE', `/api/user/databases/${olgas?.id}`)).status).toBe(200);
    expect(agents.dev2.callsOf('dropDatabase').map((call) => call.request)).toEqual([{ name: olgas?.name, user: olgas?.user }]);
    expect(agents.dev1.callsOf('dropDatabase')).toEqual([]);
    expect((await (await as(ADMIN)).json('DELETE', `/api/user/databases/${annas?.id}`)).status).toBe(200);
    expect(agents.dev1.callsOf('dropDatabase').map((call) => call.request)).toEqual([{ name: annas?.name, user: annas?.user }]);
    expect(agents.dev2.callsOf('dropDatabase')).toHaveLength(1);
    expect(databaseNames('dev1')).toEqual([]);
    expect(databaseNames('dev2')).toEqual([]);
  });
});

describe('screenshot queues', () => {
  const screenshotStateOf = async (id: number): Promise<ScreenshotState> => call(await as(ADMIN), screenshotState, { params: { id } });

  it('captures on each dev server in its own queue: a slow server does not hold up the other', async () => {
    for (const [host, project] of [['dev1', onDev1], ['dev2', onDev2]] as const) {
      const container = agents[host].containers.get(project.name);
      expect(container, `${project.name} has a container on ${host}`).toBeDefined();
      (container as { state: string }).state = 'running';
    }
    // dev2's browser takes 8 s; with one capture at a time overall, dev1's would wait for it.
    agents.dev2.screenshotDelayMs = 8_000;
    try {
      const slow = await send(await as(ADMIN), requestScreenshot, { params: { id: onDev2.id } });
      expect(slow.status).toBe(202);
      await waitFor(() => agents.dev2.capturesOf(domainOn('dev2', onDev2.name)).length === 1, { description: 'dev2 capturing', timeoutMs: 5_000 });
      const startedAt = Date.now();
      expect((await send(await as(ADMIN), requestScreenshot, { params: { id: onDev1.id } })).status).toBe(202);
      await waitFor(async () => (await screenshotStateOf(onDev1.id)).capturedAt !== null, { description: 'the dev1 capture stored', timeoutMs: 5_000, intervalMs: 50 });
      expect(Date.now() - startedAt).toBeLessThan(5_000);
      // Each capture went to its own server's browser, and dev2's is still running.
      expect(agents.dev1.capturesOf(domainOn('dev1', onDev1.name))).toHaveLength(1);
      expect(agents.dev1.capturesOf(domainOn('dev2', onDev2.name))).toEqual([]);
      expect((await screenshotStateOf(onDev2.id)).inFlight).toBe(true);
      await waitFor(async () => (await screenshotStateOf(onDev2.id)).capturedAt !== null, { description: 'the dev2 capture stored', timeoutMs: 20_000, intervalMs: 100 });
    } finally {
      agents.dev2.screenshotDelayMs = 0;
    }
  }, 40_000);
});

describe('GET /api/admin/agent', () => {
  it('lists both dev servers with their address, site domain and state; the first at the top level', async () => {
    const { status, body } = await (await as(ADMIN)).json<{ state: string; hosts: Array<Record<string, unknown>> }>('GET', '/api/admin/agent');
    expect(status).toBe(200);
    expect(body.state).toBe('reachable');
    expect(body.hosts).toEqual([
      expect.objectContaining({ name: 'dev1', address: agents.dev1.address, siteDomain: SERVERS.dev1.siteDomain, state: 'reachable', error: null }),
      expect.objectContaining({ name: 'dev2', address: agents.dev2.address, siteDomain: SERVERS.dev2.siteDomain, state: 'reachable', error: null }),
    ]);
  });
});
