/*
 * Idle auto-stop end to end, nothing faked but the clock: the real host agent (in this process,
 * so its idle clock can be moved by hand instead of waiting days), the real Docker engine with a
 * student's real container, the real Caddy sending its access log to the agent, the agent's real
 * Chromium taking a screenshot through Caddy, the real control plane and soketi, and a real
 * browser on the student's dockers page.
 *
 * The checks the cron job would run are run by the test (`stopper.check()`); everything they act
 * on — visits, the screenshot, container starts — goes through the real parts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminDocker, UserDocker } from '@devplein/contract/dockers';
import { loadConfig } from '../../host-agent/src/config.ts';
import { siteRequestCount } from '../../host-agent/src/metrics/metrics.ts';
import { type RunningAgentServer, startAgentServer } from '../../host-agent/src/server.ts';
import { agentLinkEnv, makeTestCerts, type TestCerts } from '../support/services/agent.ts';
import { startCaddy, visitSite, type TestCaddy } from '../support/services/caddy.ts';
import { ensureWebImage, randomSuffix, testDocker } from '../support/services/docker.ts';
import { E2E_TEST_TIMEOUT_MS, shotsDir, startE2eApp, type E2eApp } from '../support/stacks/e2e-app.ts';
import { HttpSession } from '../support/clients/http-session.ts';
import { insertStaticSiteProject } from '../support/fixtures/projects.ts';
import { waitFor } from '../support/clients/ports.ts';

const SITE = 'dev.devplein.test';
const HOUR = 3_600_000;
const MINUTE = 60_000;
const suffix = randomSuffix();
const siteName = `idle-${suffix}`;
const domain = `${siteName}.${SITE}`;
const network = `devplein-idle-${suffix}`;
const shots = shotsDir();
const docker = testDocker();

let workDir: string;
let dataDir: string;
let certs: TestCerts;
let caddy: TestCaddy;
let agent: RunningAgentServer;
let agentPort = 0;
let e2e: E2eApp;
let projectId: number;
let student: HttpSession;
let admin: HttpSession;
/** The idle auto-stop's clock; the test moves it. Starts at the real time. */
let clock = new Date();

function agentEnv(): Record<string, string> {
  return {
    AGENT_LISTEN: `127.0.0.1:${agentPort}`,
    AGENT_TLS_CA: certs.ca,
    AGENT_TLS_CERT: certs.agentCert,
    AGENT_TLS_KEY: certs.agentKey,
    AGENT_CADDY_ADMIN: caddy.adminUrl,
    AGENT_CADDY_SERVER: caddy.serverName,
    AGENT_DOCKER_NETWORK: network,
    AGENT_SSH_BIND_ADDRESS: '127.0.0.1',
    AGENT_SITE_DOMAIN: SITE,
    AGENT_SCREENSHOT_PROXY: `127.0.0.1:${caddy.httpPort}`,
    AGENT_SCREENSHOT_PAGES: '1',
    AGENT_DATA_DIR: dataDir,
    AGENT_METRICS_LISTEN: '',
    AGENT_SHUTDOWN_TIMEOUT_MS: '3000',
    AGENT_IDLE_STOP_AFTER: '1h',
    // The test runs the checks itself; the schedule would fire once a year.
    AGENT_IDLE_CRON: '0 0 1 1 *',
    AGENT_ACCESS_LOG_LISTEN: '127.0.0.1:0',
  };
}

async function startAgent(): Promise<void> {
  agent = await startAgentServer({ config: loadConfig(agentEnv()), logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }), now: () => clock });
  agentPort = agent.port;
}

function idle(): NonNullable<RunningAgentServer['idle']> {
  if (!agent.idle) throw new Error('the agent runs without idle auto-stop');
  return agent.idle;
}

const lastActivity = () => idle().tracking.activity.lastActivityOf(domain)?.getTime();
const screenshotterRequests = () => siteRequestCount(agent.metrics, 'screenshotter');

/** A visitor's request through Caddy, and the agent having seen it (at the current clock). */
async function visit(): Promise<void> {
  const expected = clock.getTime();
  await waitFor(
    async () => {
      const answer = await visitSite(caddy.httpPort, domain);
      return answer.status === 200 && lastActivity() === expected;
    },
    { description: `a visit of ${domain} through Caddy seen by the agent`, timeoutMs: 20_000, intervalMs: 250 },
  );
}

async function dockersCard(email: string, viewport: { width: number; height: number }): Promise<{ page: Page; close: () => Promise<void> }> {
  const { context, page } = await e2e.signInAs(email, viewport);
  await page.goto(`${e2e.url}/dockers`);
  await page.locator(`[data-testid="docker-card"][data-docker="${siteName}"]`).waitFor();
  return { page, close: () => context.close() };
}

const card = (page: Page) => page.locator(`[data-testid="docker-card"][data-docker="${siteName}"]`);

async function userDocker(): Promise<UserDocker | undefined> {
  const answer = await student.json<UserDocker[]>('GET', '/api/user/dockers');
  return answer.body.find((item) => item.Names[0] === `/${siteName}`);
}

beforeAll(async () => {
  const image = await ensureWebImage();
  workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-idle-stop-'));
  dataDir = path.join(workDir, 'agent-data');
  certs = await makeTestCerts(path.join(workDir, 'certs'));
  caddy = await startCaddy();
  await startAgent();
  e2e = await startE2eApp({
    env: {
      SITE_DOMAIN: SITE,
      ...agentLinkEnv(`localhost:${agentPort}`, certs),
      THUMBNAIL_CRON: 'off',
      // Screenshots only when the test asks for one.
      THUMBNAIL_AFTER_START_S: '3600',
    },
    beforeStart: async ({ database }) => {
      await database.knex('docker_images').where({ name: 'Statische site' }).update({ image, ssh: false });
      projectId = await insertStaticSiteProject(database.knex, {
        name: siteName,
        domain,
        description: 'Een echte site voor de test van het automatisch stoppen.',
        ownerEmail: 'student@devplein.test',
      });
    },
  });
  student = new HttpSession(e2e.url);
  expect((await student.signIn('student@devplein.test')).status).toBe(200);
  admin = new HttpSession(e2e.url);
  expect((await admin.signIn('admin@devplein.test')).status).toBe(200);
}, 180_000);

afterAll(async () => {
  await e2e?.stop();
  await agent?.shutdown();
  await caddy?.stop();
  await docker.getContainer(siteName).remove({ force: true }).catch(() => undefined);
  await docker.getNetwork(network).remove().catch(() => undefined);
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('idle auto-stop', { timeout: E2E_TEST_TIMEOUT_MS * 3 }, () => {
  it('visits keep a site running; a screenshot does not; an hour without visitors stops it, and the open page says why', async () => {
    expect((await student.json('POST', '/api/user/dockers', { id: projectId })).status).toBe(200);
    // The container's start counts as activity (the agent hears the start event).
    await waitFor(() => lastActivity() === clock.getTime(), { description: 'the start recorded as activity', timeoutMs: 20_000 });

    clock = new Date(clock.getTime() + 50 * MINUTE);
    await visit();
    const lastVisit = clock.getTime();
    // 100 minutes after the start, 50 after the visit: kept.
    clock = new Date(clock.getTime() + 50 * MINUTE);
    expect((await idle().stopper.check()).stopped).toEqual([]);
    expect((await docker.getContainer(siteName).inspect()).State.Status).toBe('running');

    // The thumbnail of the admin page: the agent's Chromium visits the site through Caddy.
    const screenshotterBefore = await screenshotterRequests();
    expect((await admin.json('POST', `/api/admin/dockers/${projectId}/screenshot`)).status).toBe(202);
    await waitFor(
      async () => {
        const state = (await admin.json<{ inFlight: boolean; capturedAt: string | null }>('GET', `/api/admin/dockers/${projectId}/screenshot`)).body;
        return !state.inFlight && state.capturedAt !== null;
      },
      { description: 'the screenshot of the site', timeoutMs: 90_000, intervalMs: 500 },
    );
    await waitFor(async () => (await screenshotterRequests()) > screenshotterBefore, { description: "the screenshot's requests in the access log", timeoutMs: 20_000 });
    expect(lastActivity()).toBe(lastVisit);

    // The student has the page open while the site runs.
    const desktop = await dockersCard('student@devplein.test', { width: 1280, height: 900 });
    try {
      await card(desktop.page).and(desktop.page.locator('[data-state="running"]')).waitFor();
      await expect(desktop.page.getByTestId('docker-auto-stop').count()).resolves.toBe(0);

      // 65 minutes after the last visit (the screenshot 15 minutes ago does not count).
      clock = new Date(clock.getTime() + 15 * MINUTE);
      const stoppedAt = clock.toISOString();
      expect((await idle().stopper.check()).stopped).toEqual([siteName]);

      // Stopped, not removed.
      expect((await docker.getContainer(siteName).inspect()).State.Status).toBe('exited');

      // The open page follows the live event and says why, without a reload.
      const notice = card(desktop.page).getByTestId('docker-auto-stop');
      await notice.waitFor({ timeout: 30_000 });
      await card(desktop.page).and(desktop.page.locator('[data-state="exited"]')).waitFor();
      const text = await notice.innerText();
      expect(text).toMatch(/^Automatisch gestopt op \d{1,2} \w+ \d{4} om \d{2}:\d{2} omdat je site 1 uur geen bezoekers had\./);
      expect(text).toContain('start hem opnieuw met Starten');
      await desktop.page.screenshot({ path: path.join(shots, 'dockers-idle-stopped.png'), fullPage: true });

      // The control plane has the reason, for the student and in the admin table.
      expect((await userDocker())?.autoStop).toEqual({ reason: 'idle', stoppedAt, lastActivityAt: new Date(lastVisit).toISOString(), idleAfterSeconds: 3600 });
      const rows = (await admin.json<AdminDocker[]>('GET', '/api/admin/dockers')).body;
      expect(rows.find((row) => row.Names[0] === `/${siteName}`)?.autoStop?.stoppedAt).toBe(stoppedAt);
      // Its route is gone with it: Caddy's catch-all answers.
      await waitFor(async () => (await visitSite(caddy.httpPort, domain)).status === 404, { description: 'the route removed', timeoutMs: 20_000 });
      // Those 404s are logged at error level by Caddy 2.6, yet only the agent got them: the
      // default log leaves the agent's access logger out.
      expect(caddy.output()).not.toContain('http.log.access');
    } finally {
      await desktop.close();
    }

    const teacher = await e2e.signInAs('admin@devplein.test', { width: 1280, height: 900 });
    try {
      await teacher.page.goto(`${e2e.url}/admin/dockers`);
      const row = teacher.page.locator('tr', { hasText: siteName });
      await row.getByTestId('auto-stop').waitFor();
      expect(await row.getByTestId('auto-stop').innerText()).toMatch(/^automatisch gestopt op \d{2}-\d{2}-\d{4} \d{2}:\d{2}: geen bezoekers$/);
      await teacher.page.screenshot({ path: path.join(shots, 'admin-dockers-idle-stopped.png'), fullPage: true });
    } finally {
      await teacher.context.close();
    }

    const phone = await dockersCard('student@devplein.test', { width: 375, height: 812 });
    try {
      await card(phone.page).getByTestId('docker-auto-stop').waitFor();
      expect(await phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      await phone.page.screenshot({ path: path.join(shots, 'dockers-idle-stopped-375.png'), fullPage: true });
    } finally {
      await phone.close();
    }
  });

  it('an agent restart keeps the last activity and the reason; Starten brings the site back and counts as activity', async () => {
    // The last request the agent saw (the route check above asked Caddy for the site too).
    const before = lastActivity();
    expect(before).toBeDefined();
    clock = new Date(clock.getTime() + 20 * MINUTE);
    await agent.shutdown();
    // Two hours go by while the agent is down, then ten minutes with it running again.
    clock = new Date(clock.getTime() + 2 * HOUR);
    await startAgent();
    clock = new Date(clock.getTime() + 10 * MINUTE);
    expect(lastActivity()).toBe(before);
    // Idle: the 20 minutes before the restart and the 10 after; not the 2 hours nobody watched.
    expect(idle().tracking.activity.idleMs(new Date(before ?? 0))).toBe(30 * MINUTE);
    // The control plane reconnects to the restarted agent and still reports why.
    await waitFor(async () => (await userDocker())?.autoStop?.reason === 'idle', { description: 'the reason after the restart', timeoutMs: 30_000, intervalMs: 250 });

    const page = await dockersCard('student@devplein.test', { width: 1280, height: 900 });
    try {
      await card(page.page).getByTestId('docker-auto-stop').waitFor();
      await card(page.page).getByRole('button', { name: 'Starten' }).click();
      await card(page.page).and(page.page.locator('[data-state="running"]')).waitFor({ timeout: 30_000 });
      await expect(card(page.page).getByTestId('docker-auto-stop').count()).resolves.toBe(0);
    } finally {
      await page.close();
    }
    expect((await userDocker())?.autoStop).toBeNull();
    await waitFor(() => lastActivity() === clock.getTime(), { description: 'the start recorded as activity', timeoutMs: 20_000 });
    expect((await idle().stopper.check()).stopped).toEqual([]);
  });
});
