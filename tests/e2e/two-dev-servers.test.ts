/*
 * A second dev server (issue 8): one control plane with two real host agents (dev2 joined the
 * running control plane with a one-time invitation, issue 21), each on its own
 * Docker engine (the shared test engine and a private dockerd) with its own Caddy and site
 * domain. A project's domain decides its dev server; its container, route and events live
 * there only; the student's dockers page follows both live; when one agent is gone its
 * projects say 'onbereikbaar' while the other server's keep working, and everything comes back
 * without a reload when it returns.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { agentCertEnv, makeTestCerts, startTestAgent, type TestAgent, type TestCerts } from '../support/services/agent.ts';
import { startCaddy, visitSite, type TestCaddy } from '../support/services/caddy.ts';
import { dockerCli, ensureWebImage, randomSuffix, requireDockerEngine } from '../support/services/docker.ts';
import { E2E_TEST_TIMEOUT_MS, shotsDir, startE2eApp, type E2eApp } from '../support/stacks/e2e-app.ts';
import { HttpSession } from '../support/clients/http-session.ts';
import { findFreePort, waitFor } from '../support/clients/ports.ts';
import { startPrivateDockerd, type PrivateDockerd } from '../support/services/private-docker.ts';
import { STATE_UNREACHABLE, type AdminDocker } from '@devplein/contract/dockers';

const run = promisify(execFile);
const STUDENT = 'student@devplein.test';
const ADMIN = 'admin@devplein.test';
const DEV1_SITE = 'een.devplein.test';
const DEV2_SITE = 'twee.devplein.test';
const suffix = randomSuffix();
/** One project per dev server, named after it. */
const onDev1 = `eerste-${suffix}`;
const onDev2 = `tweede-${suffix}`;
const DESCRIPTION = 'Een project om te laten zien dat devplein twee ontwikkelservers tegelijk bedient.';
const shots = shotsDir();

let workDir: string;
let certs: TestCerts;
let dockerd: PrivateDockerd;
let caddy1: TestCaddy;
let caddy2: TestCaddy;
let agent1: TestAgent;
let agent2: TestAgent;
let e2e: E2eApp;
let student: HttpSession;
let admin: HttpSession;
const projectIds = new Map<string, number>();

beforeAll(async () => {
  requireDockerEngine();
  workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-e2e-two-servers-'));
  [dockerd, caddy1, caddy2, certs] = await Promise.all([startPrivateDockerd(), startCaddy(), startCaddy(), makeTestCerts(path.join(workDir, 'certs'))]);
  const [image] = await Promise.all([ensureWebImage(), ensureWebImage(dockerd.host)]);
  const agentEnv = (caddy: TestCaddy, siteDomain: string, network: string) => ({
    AGENT_CADDY_ADMIN: caddy.adminUrl,
    AGENT_CADDY_SERVER: caddy.serverName,
    AGENT_SITE_DOMAIN: siteDomain,
    AGENT_DOCKER_NETWORK: network,
    AGENT_SSH_BIND_ADDRESS: '127.0.0.1',
    AGENT_RECONCILE_CRON: '*/2 * * * * *',
  });
  agent1 = await startTestAgent({ certDir: certs.dir, env: agentEnv(caddy1, DEV1_SITE, `devplein-een-${suffix}`) });
  // dev1 comes from the links file; dev2 joins the running control plane (issue 21): invited by
  // the admin, its key made here, only the CSR sent, its certificate pinned.
  const linksFile = path.join(workDir, 'agents.json');
  await writeFile(linksFile, JSON.stringify([{ name: 'dev1', address: agent1.address, siteDomain: DEV1_SITE, studentDbHost: '10.8.0.1' }]));
  e2e = await startE2eApp({
    env: {
      AGENT_LINKS_FILE: linksFile,
      // New projects are offered on the second server (which joins below).
      SITE_DOMAIN: DEV2_SITE,
      ...agentCertEnv(certs),
      AGENT_CA_KEY_FILE: certs.caKey,
      AGENT_DEADLINE_MS: '3000',
      // The demo student has projects already; this file adds two. (Realtime: the test soketi, startControlPlane's default.)
      PROJECT_QUOTA: '50',
    },
    beforeStart: async ({ database }) => {
      await database.knex('docker_images').where({ name: 'Statische site' }).update({ image, ssh: false });
    },
  });
  admin = new HttpSession(e2e.url);
  await admin.signIn(ADMIN);
  const dev2Port = await findFreePort();
  const invitation = await admin.json<{ joinString: string }>('POST', '/api/admin/agents/invitations', {
    name: 'dev2',
    address: `localhost:${dev2Port}`,
    site_domain: DEV2_SITE,
    db_host: '10.9.0.1',
  });
  if (invitation.status !== 201) throw new Error(`inviting dev2 answered ${invitation.status}: ${JSON.stringify(invitation.body)}`);
  const dev2Certs = path.join(workDir, 'dev2-certs');
  await mkdir(dev2Certs);
  await run('openssl', ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', path.join(dev2Certs, 'agent-key.pem')]);
  const { stdout: csr } = await run('openssl', ['req', '-new', '-key', path.join(dev2Certs, 'agent-key.pem'), '-subj', '/CN=dev2']);
  const token = invitation.body.joinString.split('#')[1]!.split('.')[0]!;
  const joined = await fetch(`${e2e.url}/api/agents/join`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ csr }),
  });
  const answer = (await joined.json()) as { certificate: string; ca: string };
  if (joined.status !== 200) throw new Error(`joining dev2 answered ${joined.status}: ${JSON.stringify(answer)}`);
  await writeFile(path.join(dev2Certs, 'agent.pem'), answer.certificate);
  await writeFile(path.join(dev2Certs, 'ca.pem'), answer.ca);
  agent2 = await startTestAgent({
    certDir: dev2Certs,
    port: dev2Port,
    env: { ...agentEnv(caddy2, DEV2_SITE, `devplein-twee-${suffix}`), AGENT_DOCKER_SOCKET: dockerd.socket },
  });
  student = new HttpSession(e2e.url);
  await student.signIn(STUDENT);
  // The control plane dials dev2 as soon as it joins, before dev2's agent listens; under load its
  // reconnect backoff outlasted the first create (a 503 in CI with a core kept busy). The tests
  // start once /healthz has both servers reachable.
  await waitFor(async () => ((await (await fetch(`${e2e.url}/healthz`)).json()) as { status: string }).status === 'ok', {
    description: '/healthz ok: dev1 and dev2 reachable',
    timeoutMs: 60_000,
  });
}, 240_000);

afterAll(async () => {
  await e2e?.stop();
  await Promise.all([agent1?.stop(), agent2?.stop()]);
  // The shared engine's container of this file (the private engine goes as a whole).
  await dockerCli(['rm', '-f', onDev1]).catch(() => undefined);
  await dockerCli(['network', 'rm', `devplein-een-${suffix}`]).catch(() => undefined);
  await Promise.all([caddy1?.stop(), caddy2?.stop()]);
  await dockerd?.destroy();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** Docker's State of a container on the shared engine (dev1); undefined when it does not exist. */
async function sharedEngineState(name: string): Promise<string | undefined> {
  const out = await dockerCli(['ps', '-a', '--filter', `name=^/${name}$`, '--format', '{{.State}}']);
  return out.trim() || undefined;
}

/** The same on the private engine (dev2). */
async function privateEngineState(name: string): Promise<string | undefined> {
  const [info] = await dockerd.docker.listContainers({ all: true, filters: { name: [`^/${name}$`] } });
  return info?.State;
}

async function routedDomains(caddy: TestCaddy): Promise<string[]> {
  const response = await fetch(`${caddy.adminUrl}/config/apps/http/servers/${caddy.serverName}/routes`);
  const routes = (await response.json()) as Array<{ match?: Array<{ host?: string[] }> } | null> | null;
  return (routes ?? []).flatMap((route) => route?.match?.flatMap((match) => match.host ?? []) ?? []);
}

async function requestProject(name: string, domain: string): Promise<number> {
  const imageId = Number((await e2e.database.knex('docker_images').where({ name: 'Statische site' }).first('id'))!.id);
  const answer = await student.json<{ id: number }>('POST', '/api/user/project', {
    name,
    domain,
    docker_id: imageId,
    description: DESCRIPTION,
    visible: '1',
    users: [],
    end_date: null,
    repro: null,
  });
  if (answer.status !== 201) throw new Error(`requesting ${name} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body.id;
}

async function expectCardState(page: Page, name: string, state: string, timeout = 30_000): Promise<void> {
  await page.locator(`[data-testid="docker-card"][data-docker="${name}"][data-state="${state}"]`).waitFor({ timeout });
}

describe('two dev servers', () => {
  it(
    'places each project on the dev server of its domain: container, route and site live there only',
    async () => {
      const outside = await student.json<{ message: string; errors: Record<string, string[]> }>('POST', '/api/user/project', {
        name: `nergens-${suffix}`,
        domain: `nergens-${suffix}.elders.test`,
        docker_id: 5,
        description: DESCRIPTION,
        visible: '1',
        users: [],
      });
      expect(outside.status).toBe(422);
      expect(outside.body.errors.domain).toEqual([`Het domein moet eindigen op .${DEV1_SITE} of .${DEV2_SITE}.`]);

      projectIds.set(onDev1, await requestProject(onDev1, `${onDev1}.${DEV1_SITE}`));
      projectIds.set(onDev2, await requestProject(onDev2, `${onDev2}.${DEV2_SITE}`));
      const hosts = await e2e.database.knex('projects').whereIn('name', [onDev1, onDev2]).orderBy('name').select('name', 'host');
      expect(hosts).toEqual([
        { name: onDev1, host: 'dev1' },
        { name: onDev2, host: 'dev2' },
      ]);

      for (const name of [onDev1, onDev2]) {
        expect((await admin.json('PUT', `/api/admin/projects/${projectIds.get(name)}`, {})).status).toBe(200);
        const created = await student.json<Array<{ State: string }>>('POST', '/api/user/dockers', { id: projectIds.get(name) });
        expect(created.status).toBe(200);
        expect(created.body[0]?.State).toBe('running');
      }

      // Each container on its own server's engine, and nowhere else.
      expect(await sharedEngineState(onDev1)).toBe('running');
      expect(await privateEngineState(onDev1)).toBeUndefined();
      expect(await privateEngineState(onDev2)).toBe('running');
      expect(await sharedEngineState(onDev2)).toBeUndefined();

      // Each server's Caddy routes its own project's domain only, and serves its site.
      await waitFor(async () => (await routedDomains(caddy1)).includes(`${onDev1}.${DEV1_SITE}`) && (await routedDomains(caddy2)).includes(`${onDev2}.${DEV2_SITE}`), {
        description: 'both routes',
        timeoutMs: 20_000,
      });
      expect(await routedDomains(caddy1)).not.toContain(`${onDev2}.${DEV2_SITE}`);
      expect(await routedDomains(caddy2)).not.toContain(`${onDev1}.${DEV1_SITE}`);
      expect((await visitSite(caddy1.httpPort, `${onDev1}.${DEV1_SITE}`)).body).toContain('devplein test page');
      expect((await visitSite(caddy2.httpPort, `${onDev2}.${DEV2_SITE}`)).body).toContain('devplein test page');

      // The admin table has both, each with its server.
      const rows = await admin.json<AdminDocker[]>('GET', '/api/admin/dockers');
      expect(rows.status).toBe(200);
      const mine = rows.body.filter((row) => [onDev1, onDev2].includes(row.Names[0]?.replace(/^\//, '') ?? ''));
      expect(mine.map((row) => [row.Names[0], row.host, row.State]).sort()).toEqual([
        [`/${onDev1}`, 'dev1', 'running'],
        [`/${onDev2}`, 'dev2', 'running'],
      ]);
    },
    120_000,
  );

  it(
    'follows both servers live; with one agent gone its project says onbereikbaar, the other keeps working, and all comes back without a reload',
    async () => {
      const { context, page } = await e2e.signInAs(STUDENT);
      try {
        await page.goto(`${e2e.url}/dockers`);
        await expectCardState(page, onDev1, 'running');
        await expectCardState(page, onDev2, 'running');

        // A change made on the second server's engine, outside the product, reaches the page through that server's agent.
        await dockerd.cli(['pause', onDev2]);
        await expectCardState(page, onDev2, 'paused');

        // The second agent vanishes: its card says 'onbereikbaar', never a Docker state it cannot know.
        await agent2.kill();
        await expectCardState(page, onDev2, STATE_UNREACHABLE);
        expect(await page.locator(`[data-testid="docker-card"][data-docker="${onDev1}"]`).getAttribute('data-state')).toBe('running');

        // The first server works meanwhile: a stop through the product lands in its engine and on its card.
        const stopped = await student.json<Array<{ State: string }>>('PUT', `/api/user/dockers/${projectIds.get(onDev1)}?action=stop`);
        expect(stopped.status).toBe(200);
        expect(stopped.body[0]?.State).toBe('exited');
        expect(await sharedEngineState(onDev1)).toBe('exited');
        await expectCardState(page, onDev1, 'exited');
        // An action on the missing server is an honest 503, and nothing changed on its engine.
        expect((await student.json('PUT', `/api/user/dockers/${projectIds.get(onDev2)}?action=unpause`)).status).toBe(503);
        expect(await privateEngineState(onDev2)).toBe('paused');

        // The admin table and /healthz say which server is missing.
        const rows = await admin.json<AdminDocker[]>('GET', '/api/admin/dockers');
        expect(rows.status).toBe(200);
        expect(rows.body.find((row) => row.Names[0] === `/${onDev2}`)).toMatchObject({ host: 'dev2', State: STATE_UNREACHABLE });
        expect(rows.body.find((row) => row.Names[0] === `/${onDev1}`)).toMatchObject({ host: 'dev1', State: 'exited' });
        await waitFor(
          async () => {
            const health = (await (await fetch(`${e2e.url}/healthz`)).json()) as { status: string; hosts: Array<{ name: string; state: string }> };
            return health.status === 'degraded' && health.hosts.find((host) => host.name === 'dev2')?.state === 'unreachable';
          },
          { description: '/healthz to report dev2 unreachable', timeoutMs: 20_000 },
        );
        await page.screenshot({ path: path.join(shots, 'two-dev-servers-one-unreachable.png'), fullPage: true });

        // The admin's table says, per row, which server it is on; the missing one's project is 'onbereikbaar'.
        const adminPage = await e2e.signInAs(ADMIN);
        try {
          await adminPage.page.goto(`${e2e.url}/admin/dockers`);
          const adminRow = (name: string) => adminPage.page.locator(`[data-testid="admin-docker-row"][data-docker="${name}"]`);
          await adminRow(onDev2).waitFor();
          expect(await adminRow(onDev2).getByTestId('docker-host').textContent()).toBe('op dev2');
          expect(await adminRow(onDev1).getByTestId('docker-host').textContent()).toBe('op dev1');
          expect(await adminRow(onDev2).textContent()).toContain('Ontwikkelserver dev2 is niet bereikbaar');
          await adminPage.page.screenshot({ path: path.join(shots, 'two-dev-servers-admin.png'), fullPage: true });
        } finally {
          await adminPage.context.close();
        }

        // It comes back: the card shows the engine's true state, without a reload.
        await agent2.restart();
        await expectCardState(page, onDev2, 'paused', 45_000);
        expect(await page.locator(`[data-testid="docker-card"][data-docker="${onDev1}"]`).getAttribute('data-state')).toBe('exited');
        await waitFor(async () => ((await (await fetch(`${e2e.url}/healthz`)).json()) as { status: string }).status === 'ok', {
          description: '/healthz ok again',
          timeoutMs: 20_000,
        });
        const health = (await (await fetch(`${e2e.url}/healthz`)).json()) as { hosts: Array<{ name: string; state: string }> };
        expect(health.hosts).toEqual([
          { name: 'dev1', state: 'reachable', since: expect.any(String) },
          { name: 'dev2', state: 'reachable', since: expect.any(String) },
        ]);
        await page.screenshot({ path: path.join(shots, 'two-dev-servers-recovered.png'), fullPage: true });
      } finally {
        await context.close();
      }
    },
    E2E_TEST_TIMEOUT_MS * 3,
  );

  it(
    'removes a project’s container and route on its own server when the project is deleted',
    async () => {
      const id = projectIds.get(onDev2);
      expect((await student.json('DELETE', `/api/user/project/${id}`)).status).toBe(204);
      expect(await privateEngineState(onDev2)).toBeUndefined();
      await waitFor(async () => !(await routedDomains(caddy2)).includes(`${onDev2}.${DEV2_SITE}`), { description: 'the route gone from the second Caddy', timeoutMs: 20_000 });
      // The first server's project is untouched.
      expect(await sharedEngineState(onDev1)).toBe('exited');
      expect(await routedDomains(caddy1)).not.toContain(`${onDev2}.${DEV2_SITE}`);
    },
    60_000,
  );
});
