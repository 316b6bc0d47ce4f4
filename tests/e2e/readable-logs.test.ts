import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { makeTestCerts, agentLinkEnv } from '../support/services/agent.ts';
import { startFakeAgent, type FakeAgent } from '../support/fakes/fake-agent.ts';
import { E2E_TEST_TIMEOUT_MS, shotsDir, startE2eApp, type E2eApp, type Viewport } from '../support/stacks/e2e-app.ts';

/*
 * Issue 22 in Chromium: a container's log with ANSI colours shows them as coloured spans (the
 * container's markup stays text), long lines wrap inside the dialog, and the image pull shows
 * its progress in Dutch ("Laag 3 van 7 downloaden… 45 %"), on a desktop and on a phone. The
 * fake agent serves the logs; the pull's NDJSON answer is held open by the page's own fetch so
 * the card can be looked at mid-pull (the Dutch wording of every Docker line is unit-tested in
 * web/src/api/queries/dockers.test.ts).
 */

const STUDENT = 'student@devplein.test';
const DESKTOP: Viewport = { width: 1280, height: 900 };
const PHONE: Viewport = { width: 390, height: 844 };
const shots = shotsDir();

let certDir: string;
let agent: FakeAgent;
let e2e: E2eApp;
let running: { id: number; name: string };
let waiting: { id: number; name: string };

async function studentProject(name: string): Promise<{ id: number; name: string }> {
  const knex = e2e.database.knex;
  const image = await knex('docker_images').where({ name: 'Statische site' }).first<{ id: number }>('id');
  const [project] = await knex('projects')
    .insert({ name, domain: `${name}.dev.devplein.test`, description: 'Een site om de logs van devplein te bekijken.', visible: true, docker_image_id: image.id, validated: true })
    .returning<{ id: number }[]>('id');
  if (project === undefined) throw new Error('no project');
  await knex('project_user').insert({ project_id: project.id, user_id: await e2e.userIdOf(STUDENT), position: 0 });
  return { id: project.id, name };
}

beforeAll(async () => {
  certDir = mkdtempSync(path.join(os.tmpdir(), 'devplein-e2e-logs-'));
  const certs = await makeTestCerts(certDir);
  agent = await startFakeAgent({ certs });
  e2e = await startE2eApp({ env: { SITE_DOMAIN: 'dev.devplein.test', ...agentLinkEnv(agent.address, certs) } });
  running = await studentProject('kleurlog');
  waiting = await studentProject('laadbalk');
  const { context, page } = await e2e.signInAs(STUDENT);
  const status = await page.evaluate(async (id) => {
    const token = document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? '';
    const response = await fetch('/api/user/dockers', {
      method: 'POST',
      headers: { 'X-CSRF-TOKEN': token, 'X-Requested-With': 'XMLHttpRequest', 'Content-Type': 'application/json' },
      body: JSON.stringify({ id }),
    });
    return response.status;
  }, running.id);
  expect(status).toBe(200);
  await context.close();
  agent.log(running.name, '\u001b[32m✔\u001b[0m Server gestart op poort \u001b[1m8080\u001b[0m');
  agent.log(running.name, '\u001b[33mWAARSCHUWING\u001b[0m config.php mist \u001b[4mDB_HOST\u001b[0m, standaard 127.0.0.1 gebruikt');
  agent.log(running.name, '\u001b[1;31mFOUT\u001b[0m <script>alert("niet uitvoeren")</script> in \u001b[38;5;208mindex.php\u001b[0m:12', 'stderr');
  agent.log(running.name, `\u001b[36m${'een-heel-lange-regel-zonder-spaties-'.repeat(12)}\u001b[0m`);
  agent.log(running.name, '\u001b[90m[2026-11-27 12:00:00]\u001b[0m GET /index.php 200 \u001b[38;2;120;200;255m3 ms\u001b[0m');
}, 120_000);

afterAll(async () => {
  await e2e?.stop();
  await agent?.stop();
  if (certDir) rmSync(certDir, { recursive: true, force: true });
});

function card(page: Page, name: string) {
  return page.locator(`[data-testid="docker-card"][data-docker="${name}"]`);
}

/**
 * Makes the page's POST /api/user/dockers_images answer a few of Docker's English lines and then
 * stay open, so the card stays mid-pull.
 */
async function holdPullOpen(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const realFetch = window.fetch.bind(window);
    window.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if (!url.includes('/api/user/dockers_images')) return realFetch(input, init);
      const lines = [
        { status: 'Pulling from devplein/static', layerId: 'latest' },
        ...['l1', 'l2', 'l3', 'l4', 'l5', 'l6', 'l7'].map((layerId) => ({ status: 'Pulling fs layer', layerId })),
        { status: 'Pull complete', layerId: 'l1' },
        { status: 'Pull complete', layerId: 'l2' },
        { status: 'Downloading', layerId: 'l3', current: 4_500_000, total: 10_000_000, progress: '[=====>    ]' },
      ];
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(lines.map((line) => JSON.stringify(line)).join('\n') + '\n'));
          // Never closed: the pull is still going on.
        },
      });
      return Promise.resolve(new Response(body, { status: 200, headers: { 'Content-Type': 'application/x-ndjson' } }));
    };
  });
}

describe('readable logs and Dutch pull progress in Chromium', { timeout: E2E_TEST_TIMEOUT_MS * 2 }, () => {
  for (const [label, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    it(`shows ANSI colours as colours, the container's markup as text, long lines wrapped (${label})`, async () => {
      const { context, page } = await e2e.signInAs(STUDENT, viewport);
      await page.goto(`${e2e.url}/dockers`);
      await card(page, running.name).getByRole('button', { name: 'Logs' }).click();
      const logs = page.getByTestId('log-viewer');
      await logs.getByText('WAARSCHUWING').waitFor();
      const colours = await logs.locator('.log-line span[class*="ansi-"], .log-line span[style]').evaluateAll((spans) =>
        spans.map((span) => ({ text: span.textContent, colour: getComputedStyle(span).color })),
      );
      expect(colours).toEqual(
        expect.arrayContaining([
          { text: '✔', colour: 'rgb(126, 231, 135)' },
          { text: 'WAARSCHUWING', colour: 'rgb(227, 179, 65)' },
          { text: 'index.php', colour: 'rgb(255, 135, 0)' },
          { text: '3 ms', colour: 'rgb(120, 200, 255)' },
        ]),
      );
      expect(await logs.getByText('<script>alert("niet uitvoeren")</script>', { exact: false }).count()).toBe(1);
      expect(await logs.locator('script').count()).toBe(0);
      expect(await logs.locator('.log-line').evaluateAll((lines) => lines.map((line) => line.textContent ?? '').join('\n'))).not.toContain('\u001b');
      // The long line wraps: nothing sticks out of the log to the side.
      const overflow = await logs.locator('.log-output').evaluate((element) => element.scrollWidth - element.clientWidth);
      expect(overflow).toBeLessThanOrEqual(1);
      await page.screenshot({ path: path.join(shots, `logs-ansi-${label}.png`) });
      await context.close();
    });

    it(`shows the image pull in Dutch, never Docker's English line (${label})`, async () => {
      const { context, page } = await e2e.signInAs(STUDENT, viewport);
      await holdPullOpen(page);
      await page.goto(`${e2e.url}/dockers`);
      await card(page, waiting.name).getByRole('button', { name: 'Aanmaken' }).click();
      await card(page, waiting.name).getByText('Laag 3 van 7 downloaden… 45 %').waitFor();
      const text = await card(page, waiting.name).innerText();
      expect(text).not.toMatch(/Downloading|Pulling|Pull complete/);
      await card(page, waiting.name).scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(shots, `pull-progress-${label}.png`) });
      await context.close();
    });
  }
});
