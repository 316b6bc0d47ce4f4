/*
 * Container hosting end to end, nothing faked: Chromium → control plane → gRPC/mTLS → host agent
 * → the real Docker engine and Caddy, with live updates through the real soketi. A student
 * requests a project, a teacher approves it, the student creates the container, Caddy routes
 * its domain to it, the student stops it, and changes made outside the product (`docker pause`)
 * and an agent that dies (also in the middle of a create) show on the open page.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { type TestAgent, agentLinkEnv } from '../support/services/agent.ts';
import { visitSite, type TestCaddy } from '../support/services/caddy.ts';
import { startRealHosting, type RealHosting } from '../support/stacks/real-hosting.ts';
import { WEB_STDERR_LINE, WEB_STDOUT_LINE, dockerCli, ensureWebImage, randomSuffix, testDocker } from '../support/services/docker.ts';
import { shotsDir, startE2eApp, type E2eApp } from '../support/stacks/e2e-app.ts';
import { HttpSession } from '../support/clients/http-session.ts';
import { waitFor } from '../support/clients/ports.ts';

const SITE = 'dev.devplein.test';
const suffix = randomSuffix();
/** Container names are global on the engine: unique per run. */
const siteName = `site-${suffix}`;
const crashName = `crash-${suffix}`;
const network = `devplein-e2e-${suffix}`;
const shots = shotsDir();
const docker = testDocker();

let hosting: RealHosting;
let caddy: TestCaddy;
let agent: TestAgent;
let e2e: E2eApp;

beforeAll(async () => {
  const image = await ensureWebImage();
  // Reconcile every 2 s and treat a container left in `created` for 3 s as half made.
  hosting = await startRealHosting({ network, agentEnv: { AGENT_RECONCILE_CRON: '*/2 * * * * *', AGENT_HALF_MADE_AFTER_S: '3' } });
  ({ caddy, agent } = hosting);
  e2e = await startE2eApp({
    env: {
      SITE_DOMAIN: SITE,
      ...agentLinkEnv(agent.address, hosting.certs),
      AGENT_DEADLINE_MS: '3000',
    },
    // The 'Statische site' option runs the local test image: nothing is pulled from outside.
    beforeStart: async ({ database }) => {
      await database.knex('docker_images').where({ name: 'Statische site' }).update({ image, ssh: false });
    },
  });
});

afterAll(async () => {
  await e2e?.stop();
  await hosting?.stop([siteName, crashName]);
});

function card(page: Page, name: string) {
  return page.locator(`[data-testid="docker-card"][data-docker="${name}"]`);
}

async function expectState(page: Page, name: string, state: string): Promise<void> {
  await page.locator(`[data-testid="docker-card"][data-docker="${name}"][data-state="${state}"]`).waitFor({ timeout: 20_000 });
}

async function dockerState(name: string): Promise<string | undefined> {
  const [info] = await docker.listContainers({ all: true, filters: { name: [`^/${name}$`] } });
  return info?.State;
}

async function routedDomains(): Promise<string[]> {
  const response = await fetch(`${caddy.adminUrl}/config/apps/http/servers/${caddy.serverName}/routes`);
  const routes = (await response.json()) as Array<{ match?: Array<{ host?: string[] }> }>;
  return routes.flatMap((route) => route.match?.flatMap((match) => match.host ?? []) ?? []);
}

const DESCRIPTION = 'Mijn eerste website op devplein, met een pagina over mezelf en mijn projecten.';

describe('container hosting on the real Docker engine and Caddy', { timeout: 180_000 }, () => {
  it('request → approve → create → routed by Caddy → stop, with every state arriving live', async () => {
    const student = await e2e.signInAs('student@devplein.test');
    const teacher = await e2e.signInAs('docent@devplein.test');
    const page = student.page;

    // The request, through the form.
    await page.goto(`${e2e.url}/dockers/create`);
    const form = page.getByTestId('docker-request-form');
    await form.getByRole('heading', { name: 'Docker aanvragen' }).waitFor();
    await form.getByLabel('Image').locator('option', { hasText: 'Statische site' }).waitFor({ state: 'attached' });
    await form.getByLabel('Naam').pressSequentially(siteName);
    await form.getByLabel('Image').selectOption({ label: 'Statische site' });
    await form.getByLabel('Beschrijving').fill(DESCRIPTION);
    await expect.poll(() => form.getByRole('button', { name: 'Aanvragen' }).isEnabled(), { timeout: 15_000 }).toBe(true);
    await form.getByRole('button', { name: 'Aanvragen' }).click();
    await page.waitForURL(`${e2e.url}/dockers`);
    await page.getByRole('heading', { name: 'Dockers', exact: true }).waitFor();
    await expectState(page, siteName, 'Nog niet goed gekeurd!');
    expect(await card(page, siteName).getByRole('button', { name: 'Logs' }).count()).toBe(0);
    await page.screenshot({ path: path.join(shots, 'dockers-awaiting.png'), fullPage: true });

    // The teacher approves; the student's open page follows without a reload.
    await teacher.page.goto(`${e2e.url}/admin/dockers/open`);
    const request = teacher.page.locator(`[data-testid="project-request"][data-project="${siteName}"]`);
    await request.getByRole('button', { name: 'Keur goed' }).click();
    await request.getByText('Goedgekeurd').waitFor();
    await expectState(page, siteName, 'Nog niet gecreëerd');
    await page.screenshot({ path: path.join(shots, 'dockers-not-created.png'), fullPage: true });

    // Create: the container runs and Caddy routes the domain to it.
    await card(page, siteName).getByRole('button', { name: 'Aanmaken' }).click();
    await expectState(page, siteName, 'running');
    // The page may have it from the start event, which Docker sends before its list says so.
    await waitFor(async () => (await dockerState(siteName)) === 'running', { description: `${siteName} running in Docker's list`, timeoutMs: 10_000 });
    const domain = `${siteName}.${SITE}`;
    await waitFor(async () => (await visitSite(caddy.httpPort, domain)).status === 200, { description: `Caddy routing ${domain}`, timeoutMs: 10_000 });
    expect((await visitSite(caddy.httpPort, domain)).body).toContain('devplein test page');
    await page.screenshot({ path: path.join(shots, 'dockers-running.png'), fullPage: true });

    // Limits as configured, never privileged.
    const inspected = await docker.getContainer(siteName).inspect();
    expect(inspected.HostConfig.Memory).toBeGreaterThan(0);
    expect(inspected.HostConfig.NanoCpus).toBeGreaterThan(0);
    expect(inspected.HostConfig.PidsLimit).toBeGreaterThan(0);
    expect(inspected.HostConfig.Privileged).toBe(false);

    // Logs: stdout and stderr both shown.
    await card(page, siteName).getByRole('button', { name: 'Logs' }).click();
    const logs = page.getByTestId('log-viewer');
    await logs.getByText(WEB_STDOUT_LINE).waitFor();
    await logs.getByText(WEB_STDERR_LINE).waitFor();
    await page.screenshot({ path: path.join(shots, 'dockers-logs.png') });
    await page.keyboard.press('Escape');
    await logs.waitFor({ state: 'detached' });

    // Stop: 'exited' arrives, and the route is gone (Caddy's 404, not a 502).
    await card(page, siteName).getByRole('button', { name: 'Stoppen' }).click();
    await expectState(page, siteName, 'exited');
    await waitFor(async () => (await visitSite(caddy.httpPort, domain)).status === 404, { description: 'the route to go', timeoutMs: 10_000 });
    await page.screenshot({ path: path.join(shots, 'dockers-exited.png'), fullPage: true });

    // Changes made outside the product reach the open page.
    await dockerCli(['start', siteName]);
    await expectState(page, siteName, 'running');
    await dockerCli(['pause', siteName]);
    await expectState(page, siteName, 'paused');
    await page.screenshot({ path: path.join(shots, 'dockers-paused.png'), fullPage: true });

    // The teacher's table shows it; 'herstart' (unpause) brings it back up.
    await teacher.page.goto(`${e2e.url}/admin/dockers`);
    const row = teacher.page.locator('tr', { hasText: siteName });
    await row.getByText('Paused').waitFor();
    await teacher.page.screenshot({ path: path.join(shots, 'admin-dockers.png'), fullPage: true });
    await row.getByRole('button', { name: 'herstart' }).click();
    await expectState(page, siteName, 'running');

    await student.context.close();
    await teacher.context.close();
  });

  it('shows a change made between the list’s load and the live subscription (the page reloads once subscribed)', async () => {
    // Docker announces the unpause of the test before this one before its container list says so (the list
    // is a copy the engine updates after the event): wait for it, as the page waited for the event.
    await waitFor(async () => (await dockerState(siteName)) === 'running', { description: `${siteName} running in Docker's list`, timeoutMs: 10_000 });
    const student = await e2e.signInAs('student@devplein.test');
    const page = student.page;
    // Hold the channel's authorization, so the page has its list but no subscription yet.
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let held = 0;
    await page.route('**/broadcasting/auth', async (route) => {
      held += 1;
      await released;
      await route.continue();
    });
    await page.goto(`${e2e.url}/dockers`);
    await expectState(page, siteName, 'running');
    await waitFor(() => held > 0, { description: 'the page to ask for its channel', timeoutMs: 20_000, intervalMs: 50 });
    // The change happens now: its live event goes out while nobody is subscribed.
    await dockerCli(['pause', siteName]);
    try {
      expect(await dockerState(siteName)).toBe('paused');
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(await card(page, siteName).getAttribute('data-state')).toBe('running');
      release();
      await expectState(page, siteName, 'paused');
    } finally {
      release();
      await dockerCli(['unpause', siteName]);
    }
    await expectState(page, siteName, 'running');
    await student.context.close();
  });

  it("refuses another student every call on the project, and its private channel", async () => {
    const other = new HttpSession(e2e.url);
    await other.signIn('ontwikkelaar@devplein.test');
    const project = await e2e.database.knex('projects').where({ name: siteName }).first('id');
    expect(project).toBeDefined();
    const id = Number(project!.id);
    expect((await other.api('GET', `/api/user/container/${siteName}`)).status).toBe(404);
    expect((await other.api('PUT', `/api/user/dockers/${id}?action=stop`)).status).toBe(404);
    expect((await other.api('POST', '/api/user/dockers', { id })).status).toBe(404);
    expect((await other.api('DELETE', `/api/user/project/${id}`)).status).toBe(404);
    const channel = await other.api('POST', '/broadcasting/auth', { socket_id: '123.456', channel_name: `private-container.${siteName}` });
    expect(channel.status).toBe(403);
    expect(await dockerState(siteName)).toBe('running');
  });

  it("shows 'onbereikbaar' while the agent is down; a create cut off by a crash leaves no orphan", async () => {
    const studentId = await e2e.userIdOf('student@devplein.test');
    const imageId = Number((await e2e.database.knex('docker_images').where({ name: 'Statische site' }).first('id'))!.id);
    const [crash] = await e2e.database
      .knex('projects')
      .insert({ name: crashName, domain: `${crashName}.${SITE}`, description: DESCRIPTION, docker_image_id: imageId, validated: true, visible: false })
      .returning('id');
    const crashId = Number((crash as { id: number }).id);
    await e2e.database.knex('project_user').insert({ project_id: crashId, user_id: studentId });

    const api = new HttpSession(e2e.url);
    await api.signIn('student@devplein.test');
    const { context, page } = await e2e.signInAs('student@devplein.test');
    await page.goto(`${e2e.url}/dockers`);
    await expectState(page, crashName, 'Nog niet gecreëerd');

    // Kill the agent as soon as the container exists: between create and start/route.
    const creating = api.api('POST', '/api/user/dockers', { id: crashId });
    await waitFor(async () => (await dockerState(crashName)) !== undefined, { description: 'the container to be created', timeoutMs: 15_000, intervalMs: 20 });
    await agent.kill();
    expect([200, 503]).toContain((await creating).status);

    await page.reload();
    await expectState(page, siteName, 'onbereikbaar');
    await expectState(page, crashName, 'onbereikbaar');
    await page.screenshot({ path: path.join(shots, 'dockers-unreachable.png'), fullPage: true });
    expect((await api.api('PUT', `/api/user/dockers/${crashId}?action=start`)).status).toBe(503);
    // Nothing was deleted because the agent was unreachable.
    expect(await e2e.database.knex('projects').where({ id: crashId }).first('id')).toBeDefined();

    await agent.restart();
    // After the reconcile: the crashed create is either gone or running with its route, never half made.
    await waitFor(
      async () => {
        const state = await dockerState(crashName);
        const routes = await routedDomains();
        const routed = routes.includes(`${crashName}.${SITE}`);
        return (state === undefined && !routed) || (state === 'running' && routed);
      },
      { description: 'the reconcile to repair the cut-off create', timeoutMs: 30_000, intervalMs: 250 },
    );
    // Every route has a running container and every running managed container has its route.
    const routes = await routedDomains();
    expect(routes).toContain(`${siteName}.${SITE}`);
    for (const routedDomain of routes) {
      const name = routedDomain.replace(`.${SITE}`, '');
      expect(await dockerState(name)).toBe('running');
    }
    // No reload: the page asks again by itself while it shows 'onbereikbaar'.
    await expectState(page, siteName, 'running');
    await context.close();
  });
});

