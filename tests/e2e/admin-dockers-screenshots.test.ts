import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { CaptureOutcome } from '@devplein/proto/screenshot';
import { makeTestCerts, agentLinkEnv } from '../support/services/agent.ts';
import { fakePng, startFakeAgent, type FakeAgent } from '../support/fakes/fake-agent.ts';
import { E2E_TEST_TIMEOUT_MS, shotsDir, startE2eApp, type E2eApp } from '../support/stacks/e2e-app.ts';

/*
 * The Screenshot column of /admin/dockers in Chromium: when each site was last captured, why the
 * last capture failed, and 'ververs screenshot' (busy while the capture runs, then the new time).
 * The control plane talks to the fake agent (tests/support/fakes/fake-agent.ts), whose ScreenshotService
 * answers per domain with scripted outcomes and a solid-colour PNG.
 */

const ADMIN = 'admin@devplein.test';
const SITE = 'dev.devplein.test';

const shots = shotsDir();
let certDir: string;
let agent: FakeAgent;
let e2e: E2eApp;
const projects = new Map<string, { id: number; domain: string }>();

beforeAll(async () => {
  certDir = mkdtempSync(path.join(os.tmpdir(), 'devplein-e2e-shots-'));
  const certs = await makeTestCerts(certDir);
  agent = await startFakeAgent({ certs, siteDomain: SITE });
  e2e = await startE2eApp({
    env: {
      SITE_DOMAIN: SITE,
      ...agentLinkEnv(agent.address, certs),
      THUMBNAIL_CRON: 'off',
    },
    beforeStart: async ({ database }) => {
      // Running containers of three seeded, visible projects; one has a picture from earlier.
      for (const name of ['zoe-blog', 'webshop-groen', 'sam-portfolio']) {
        const row = await database.knex('projects').where('name', name).first<{ id: number; domain: string }>('id', 'domain');
        projects.set(name, row);
        agent.addManaged({ name, projectId: row.id, domain: row.domain });
      }
      const earlier = projects.get('sam-portfolio');
      await database.knex('thumbnails').insert({
        project_id: earlier?.id,
        png: fakePng('earlier'),
        etag: 'earlier',
        captured_at: new Date('2026-11-23T02:00:00Z'),
        last_attempt_at: new Date('2026-11-23T02:00:00Z'),
      });
    },
  });
});

afterAll(async () => {
  await e2e?.stop();
  await agent?.stop();
  if (certDir) rmSync(certDir, { recursive: true, force: true });
});

const row = (page: Page, name: string) => page.locator(`[data-testid="admin-docker-row"][data-docker="${name}"]`);
const cell = (page: Page, name: string) => row(page, name).getByTestId('screenshot-cell');

describe('/admin/dockers screenshot column (fake agent)', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  it('shows the last capture per site, refreshes one on demand, and shows why a capture failed', async () => {
    const { context, page } = await e2e.signInAs(ADMIN);
    await page.goto(`${e2e.url}/admin/dockers`);
    await row(page, 'zoe-blog').waitFor();
    await page.getByRole('columnheader', { name: 'Screenshot' }).waitFor();
    expect(await cell(page, 'zoe-blog').textContent()).toContain('nog geen screenshot');
    expect(await cell(page, 'sam-portfolio').textContent()).toMatch(/laatste screenshot: 23-11-2026 \d{2}:00/);

    // The anonymous tile URL has nothing for zoe-blog yet.
    expect((await page.request.get(`${e2e.url}/misc/browserimg2/small/zoe-blog_s.png`)).status()).toBe(404);

    // A capture that takes a while: the button says bezig… and is disabled until it is done.
    const zoe = projects.get('zoe-blog');
    agent.screenshots.set(zoe?.domain ?? '', { delayMs: 1_500 });
    await row(page, 'zoe-blog').getByRole('button', { name: 'ververs screenshot van zoe-blog' }).click();
    const busy = row(page, 'zoe-blog').getByRole('button', { name: 'Screenshot van zoe-blog wordt gemaakt' });
    await busy.waitFor();
    expect(await busy.textContent()).toBe('bezig…');
    expect(await busy.isDisabled()).toBe(true);
    await row(page, 'zoe-blog').screenshot({ path: path.join(shots, 'admin-dockers-screenshots-busy.png') });
    await page.getByText('Nieuwe screenshot van zoe-blog gemaakt.').waitFor();
    await row(page, 'zoe-blog').getByRole('button', { name: 'ververs screenshot van zoe-blog' }).waitFor();
    expect(await cell(page, 'zoe-blog').textContent()).toMatch(/laatste screenshot: \d{2}-\d{2}-\d{4} \d{2}:\d{2}/);
    expect(agent.capturesOf(zoe?.domain)).toHaveLength(1);

    // Now it is served to everyone, with an ETag.
    const tile = await page.request.get(`${e2e.url}/misc/browserimg2/small/zoe-blog_s.png`);
    expect(tile.status()).toBe(200);
    expect(tile.headers().etag).toBeTruthy();
    expect((await tile.body()).equals(fakePng(zoe?.domain ?? ''))).toBe(true);

    // A site that answers 500: the reason shows in its row; the old picture is no longer served.
    const webshop = projects.get('webshop-groen');
    agent.screenshots.set(webshop?.domain ?? '', { outcome: CaptureOutcome.CAPTURE_OUTCOME_HTTP_ERROR, httpStatus: 500, errorReason: 'the site answered 500' });
    await row(page, 'webshop-groen').getByRole('button', { name: 'ververs screenshot van webshop-groen' }).click();
    await row(page, 'webshop-groen').getByTestId('screenshot-error').waitFor();
    // The agent's English reason stays in the log (Dutch everywhere): the status says enough.
    expect(await row(page, 'webshop-groen').getByTestId('screenshot-error').textContent()).toBe('HTTP-fout 500');
    expect(await cell(page, 'webshop-groen').textContent()).toContain('nog geen screenshot');
    await page.getByText('Screenshot van webshop-groen mislukt: HTTP-fout 500', { exact: true }).waitFor();

    // No browser on the agent: nothing is recorded, and the page says the service is down.
    const sam = projects.get('sam-portfolio');
    agent.screenshots.set(sam?.domain ?? '', { rpcError: { code: 14, details: 'chromium is not installed' } });
    await row(page, 'sam-portfolio').getByRole('button', { name: 'ververs screenshot van sam-portfolio' }).click();
    await page.getByText('Screenshot van sam-portfolio kon niet worden gemaakt: de screenshotdienst van de dockerserver is niet bereikbaar.', { exact: false }).waitFor();
    expect(await cell(page, 'sam-portfolio').textContent()).toMatch(/laatste screenshot: 23-11-2026/);
    await page.screenshot({ path: path.join(shots, 'admin-dockers-screenshots-message.png') });

    // Reloading shows the stored states (the list carries them).
    await page.reload();
    await row(page, 'webshop-groen').getByTestId('screenshot-error').waitFor();
    expect(await cell(page, 'zoe-blog').textContent()).toMatch(/laatste screenshot/);

    await page.getByLabel('Filter op Naam').fill('-');
    await page.screenshot({ path: path.join(shots, 'admin-dockers-screenshots.png'), fullPage: true });
    await context.close();
  });

  it('on a wide screen the whole table fits, Opties included', async () => {
    const wide = await e2e.signInAs(ADMIN, { width: 1600, height: 800 });
    await wide.page.goto(`${e2e.url}/admin/dockers`);
    await row(wide.page, 'webshop-groen').getByTestId('screenshot-error').waitFor();
    await wide.page.screenshot({ path: path.join(shots, 'admin-dockers-screenshots-wide.png') });
    await wide.context.close();
  });

  it('the websites wall shows the new thumbnail and falls back for the failed site', async () => {
    const { context, page } = await e2e.signInAs(ADMIN);
    await page.goto(`${e2e.url}/websites`);
    const zoeTile = page.locator('img[src="/misc/browserimg2/small/zoe-blog_s.png"]').first();
    await zoeTile.waitFor();
    // Tiles load lazily: bring it into view first.
    await zoeTile.scrollIntoViewIfNeeded();
    await expect.poll(() => zoeTile.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth)).toBe(320);
    const webshopTile = page.locator('a[href*="webshop-groen."] img').first();
    await webshopTile.waitFor();
    await webshopTile.scrollIntoViewIfNeeded();
    await expect.poll(() => webshopTile.getAttribute('src')).toBe('/images/without-screen.png');
    await zoeTile.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(shots, 'admin-dockers-screenshots-wall.png'), fullPage: false });
    await context.close();
  });
});
