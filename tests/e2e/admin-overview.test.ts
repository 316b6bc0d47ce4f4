/*
 * The teachers' overview (/admin/overzicht, issue 22) in Chromium: two dev servers, dev1 a fake
 * agent that the real sampler (HOST_SAMPLE_CRON every second here) asks, with 24 hours of seeded
 * samples behind it, dev2 an address where nothing listens; idle auto-stops over the last 30 days
 * and the demo projects. Every chart renders (its canvas and its text alternative), desktop and
 * phone, screenshots in .tmp/shots. uPlot is its own chunk: the admin's page loads it, a student's
 * pages never do (network requests recorded), and a student gets 'Geen toegang' here.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import type { Page } from 'playwright-core';
import { agentCertEnv, makeTestCerts } from '../support/services/agent.ts';
import { startFakeAgent, type FakeAgent } from '../support/fakes/fake-agent.ts';
import { E2E_TEST_TIMEOUT_MS, shotsDir, startE2eApp, type E2eApp } from '../support/stacks/e2e-app.ts';
import { findFreePort } from '../support/clients/ports.ts';

const ADMIN = 'docent@devplein.test';
const STUDENT = 'student@devplein.test';
const shots = shotsDir();
const DAY_MS = 86_400_000;

let workDir: string;
let agent: FakeAgent;
let e2e: E2eApp;

/** 24 hours of one-minute samples of dev1 up to two minutes ago: a school day's load, memory and a disk filling up. */
async function seedSamples(knex: Knex): Promise<void> {
  const lastMinute = Math.floor(Date.now() / 60_000) * 60_000 - 2 * 60_000;
  const rows = [];
  for (let back = 24 * 60 - 1; back >= 0; back -= 1) {
    const at = new Date(lastMinute - back * 60_000);
    const hour = at.getUTCHours() + at.getUTCMinutes() / 60;
    const busy = Math.max(0, Math.sin(((hour - 6) / 12) * Math.PI));
    // An hour without samples (the agent was down): a gap in the lines, not zeros.
    if (back > 600 && back <= 660) continue;
    rows.push({
      host: 'dev1',
      sampled_at: at,
      cpu_cores: 4,
      load_1m: 0.2 + busy * 2.4 + (back % 7) * 0.05,
      memory_total_bytes: 16e9,
      memory_available_bytes: Math.round(16e9 - (4e9 + busy * 7e9)),
      disks: JSON.stringify([
        { name: 'docker', totalBytes: 200e9, availableBytes: Math.round(90e9 - (1440 - back) * 8e6) },
        { name: 'agent', totalBytes: 50e9, availableBytes: 41e9 },
      ]),
      containers: JSON.stringify({ running: 20, exited: 4 }),
      managed_containers: JSON.stringify({ running: 18, exited: 4 }),
    });
  }
  for (let start = 0; start < rows.length; start += 500) await knex('host_samples').insert(rows.slice(start, start + 500));

  const stops = [];
  for (let day = 0; day < 30; day += 1) {
    const count = day % 7 === 5 || day % 7 === 6 ? 0 : (day * 5) % 7;
    for (let each = 0; each < count; each += 1) {
      stops.push({ host: each % 3 === 0 ? 'dev2' : 'dev1', container_id: `c${day}-${each}`, container_name: `proj-${day}-${each}`, stopped_at: new Date(Date.now() - day * DAY_MS - each * 60_000) });
    }
  }
  await knex('idle_auto_stops').insert(stops);
}

beforeAll(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-e2e-overview-'));
  const certs = await makeTestCerts(path.join(workDir, 'certs'));
  agent = await startFakeAgent({ certs });
  agent.addManaged({ name: 'webshop', projectId: 9101, domain: 'webshop.een.devplein.test' });
  agent.addManaged({ name: 'portfolio', projectId: 9102, domain: 'portfolio.een.devplein.test', state: 'exited' });
  agent.addManaged({ name: 'blog', projectId: 9103, domain: 'blog.een.devplein.test', state: 'paused' });
  agent.addUnmanaged('caddy-infra', 'devplein-test/caddy:1', 'running');
  // The top lists: running project containers with their use now (the fake's ListContainerStats).
  agent.containerStats.set('webshop', { cpuPercent: 87.5, memoryUsedBytes: 310 * 1024 * 1024 });
  for (const [index, name] of ['api-les3', 'quiz', 'chat-app', 'galerij'].entries()) {
    agent.addManaged({ name, projectId: 9110 + index, domain: `${name}.een.devplein.test` });
    agent.containerStats.set(name, { cpuPercent: 40 - index * 9, memoryUsedBytes: (120 + index * 60) * 1024 * 1024 });
  }
  const linksFile = path.join(workDir, 'agents.json');
  await writeFile(
    linksFile,
    JSON.stringify([
      { name: 'dev1', address: agent.address, siteDomain: 'een.devplein.test' },
      { name: 'dev2', address: `localhost:${await findFreePort()}`, siteDomain: 'twee.devplein.test' },
    ]),
  );
  e2e = await startE2eApp({
    env: { AGENT_LINKS_FILE: linksFile, SITE_DOMAIN: 'een.devplein.test', AGENT_ADDRESS: '', ...agentCertEnv(certs), AGENT_DEADLINE_MS: '2000', HOST_SAMPLE_CRON: '* * * * * *' },
    beforeStart: ({ database }) => seedSamples(database.knex),
  });
}, 120_000);

afterAll(async () => {
  await e2e?.stop();
  await agent?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** The uPlot chunk of the build under test (from the Vite manifest). */
async function uplotChunk(): Promise<string> {
  const manifest = JSON.parse(await readFile(path.join(e2e.webDist, '.vite', 'manifest.json'), 'utf8')) as Record<string, { file: string }>;
  const chunk = manifest['src/components/charts/UPlotChart.tsx'];
  if (!chunk) throw new Error('no chunk of src/components/charts/UPlotChart.tsx in the manifest');
  return chunk.file;
}

/** Every request path of the page from now on. */
function recordRequests(page: Page): string[] {
  const paths: string[] = [];
  page.on('request', (request) => paths.push(new URL(request.url()).pathname));
  return paths;
}

const CHARTS = ['chart-containers', 'chart-load', 'chart-memory', 'chart-disk', 'chart-auto-stops', 'chart-cohorts'] as const;

async function expectEveryChart(page: Page, shot: string): Promise<void> {
  await page.goto(`${e2e.url}/admin/overzicht`);
  await page.getByRole('heading', { name: 'Overzicht', level: 1 }).waitFor();
  for (const chart of CHARTS) {
    const figure = page.getByTestId(chart).first();
    await figure.locator('canvas').first().waitFor();
    const box = await figure.locator('canvas').first().boundingBox();
    expect(box?.width, chart).toBeGreaterThan(200);
    expect(box?.height, chart).toBeGreaterThan(100);
    // A Dutch title and a text alternative with a table.
    expect((await figure.locator('figcaption').innerText()).length, chart).toBeGreaterThan(5);
    expect(await figure.locator('.visually-hidden table').count(), chart).toBe(1);
  }
  // The sampler's own sample of dev1 (the fake agent's containers) is the 'now' bar.
  const containers = page.getByTestId('chart-containers');
  await expect.poll(async () => containers.locator('.visually-hidden table').innerText(), { timeout: 15_000 }).toMatch(/dev1\s+6\s+1\s+1\s+8/);
  expect(await containers.locator('.chart-note').innerText()).toMatch(/Geen telling van dev2/);
  // The axes carry their units (drawn on the canvas; the figure names them too).
  expect(await page.getByTestId('chart-memory').first().getAttribute('data-y-label')).toBe('Geheugen (GB)');
  expect(await page.getByTestId('chart-auto-stops').getAttribute('data-x-label')).toBe('Dag (dd-mm)');
  expect(await page.getByTestId('chart-load').first().innerText()).toMatch(/Geen CPU-percentage/);
  // dev2 never answered: no charts, a sentence.
  expect(await page.getByTestId('overview-server-dev2').getByTestId('overview-no-samples').innerText()).toMatch(/Nog geen metingen/);
  // Per server its top containers now: most CPU first, with units; dev2 does not answer.
  const top = page.getByTestId('overview-top-dev1');
  await top.getByTestId('top-cpu').getByTestId('top-container').first().waitFor();
  expect(await top.getByRole('heading', { name: 'Meeste CPU nu' }).count()).toBe(1);
  expect(await top.getByRole('heading', { name: 'Meeste geheugen nu' }).count()).toBe(1);
  const cpu = await top.getByTestId('top-cpu').getByTestId('top-container').allInnerTexts();
  expect(cpu).toHaveLength(5);
  expect(cpu[0]).toMatch(/webshop\s+88 % CPU/);
  expect(cpu[1]).toMatch(/api-les3\s+40 % CPU/);
  expect((await top.getByTestId('top-memory').getByTestId('top-container').allInnerTexts())[0]).toMatch(/webshop\s+310 MB van 512 MB/);
  expect(await page.getByTestId('overview-top-dev2').innerText()).toMatch(/antwoordt nu niet/);
  await page.screenshot({ path: path.join(shots, shot), fullPage: true });
  await page.getByTestId('overview-server-dev1').screenshot({ path: path.join(shots, shot.replace('.png', '-dev1.png')) });
  // The text alternatives carry the numbers: dev1's memory summary, auto-stops per day, projects per cohort.
  expect(await page.getByTestId('overview-server-dev1').getByTestId('chart-memory').locator('.visually-hidden table').innerText()).toMatch(/In gebruik\s+[\d,]+ GB/);
  expect(await page.getByTestId('chart-auto-stops').locator('.visually-hidden table tbody tr').count()).toBe(30);
  expect(await page.getByTestId('chart-cohorts').locator('.visually-hidden table tbody tr').count()).toBeGreaterThan(0);
}

describe('Overzicht (/admin/overzicht) in Chromium', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  it('shows an admin every chart from the samples, and loads uPlot only then (desktop)', async () => {
    const chunk = await uplotChunk();
    const { context, page } = await e2e.signInAs(ADMIN);
    try {
      const requests = recordRequests(page);
      await page.goto(`${e2e.url}/admin/status`);
      await page.getByRole('heading', { name: 'Status', level: 1 }).waitFor();
      expect(requests).not.toContain(`/${chunk}`);
      await page.getByRole('navigation', { name: 'Zijmenu' }).getByRole('link', { name: 'Overzicht' }).click();
      await page.waitForURL(`${e2e.url}/admin/overzicht`);
      await expectEveryChart(page, 'admin-overview-desktop.png');
      expect(requests).toContain(`/${chunk}`);
    } finally {
      await context.close();
    }
  });

  it('fits a phone', async () => {
    const { context, page } = await e2e.signInAs(ADMIN, { width: 390, height: 844 }, { context: { isMobile: true, hasTouch: true } });
    try {
      await expectEveryChart(page, 'admin-overview-phone.png');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
    } finally {
      await context.close();
    }
  });

  it('never sends a student the uPlot chunk, and tells them the overview is not for them', async () => {
    const chunk = await uplotChunk();
    const { context, page } = await e2e.signInAs(STUDENT);
    try {
      const requests = recordRequests(page);
      for (const [route, heading] of [
        ['/', null],
        ['/websites', null],
        ['/dockers', 'Dockers'],
        ['/levels', 'Levels'],
        ['/profile', null],
      ] as const) {
        await page.goto(`${e2e.url}${route}`);
        if (heading) await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
        await page.waitForLoadState('networkidle');
      }
      expect(await page.getByRole('navigation', { name: 'Zijmenu' }).getByRole('link', { name: 'Overzicht' }).count()).toBe(0);
      await page.goto(`${e2e.url}/admin/overzicht`);
      await page.getByText('Geen toegang').first().waitFor();
      await page.waitForLoadState('networkidle');
      expect(requests.filter((request) => request.startsWith('/assets/')).length).toBeGreaterThan(0);
      expect(requests).not.toContain(`/${chunk}`);
      expect(requests.filter((request) => /uplot|overview/i.test(request))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('tells a student on /dockers that their exited container was stopped because its memory was full (desktop, phone)', async () => {
    const project = await e2e.database.knex('projects').where({ name: 'sam-portfolio' }).first('id', 'domain');
    agent.addManaged({ name: 'sam-portfolio', projectId: Number(project.id), domain: String(project.domain) });
    agent.oomKill('sam-portfolio');
    for (const [viewport, shot] of [
      [{ width: 1280, height: 900 }, 'dockers-exited-oom-desktop.png'],
      [{ width: 390, height: 844 }, 'dockers-exited-oom-phone.png'],
    ] as const) {
      const { context, page } = await e2e.signInAs(STUDENT, viewport);
      try {
        await page.goto(`${e2e.url}/dockers`);
        const card = page.locator('[data-testid="docker-card"][data-docker="sam-portfolio"]');
        const notice = card.getByTestId('docker-exited-oom');
        await notice.waitFor();
        expect(await notice.innerText()).toBe('Je container is gestopt omdat het geheugen vol was. Kijk in de logs wat zoveel geheugen gebruikte, en start hem daarna opnieuw.');
        await card.screenshot({ path: path.join(shots, shot) });
      } finally {
        await context.close();
      }
    }
  });
});
