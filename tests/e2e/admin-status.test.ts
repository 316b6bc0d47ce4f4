/*
 * The status page (/admin/status, issue 21) in Chromium: one control plane with two dev servers,
 * dev1 a real host agent (the shared Docker engine, its own Caddy, no MariaDB configured) and
 * dev2 an address where nothing listens. The admin sees dev1's row with its parts, disk and
 * certificate, MariaDB marked as a fault in words, and dev2 as 'onbereikbaar'; on a phone too.
 * A student has no menu item and gets 'Geen toegang'. Screenshots in .tmp/shots.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { agentCertEnv, makeTestCerts, startTestAgent, type TestAgent, type TestCerts } from '../support/services/agent.ts';
import { startCaddy, type TestCaddy } from '../support/services/caddy.ts';
import { requireDockerEngine } from '../support/services/docker.ts';
import { E2E_TEST_TIMEOUT_MS, shotsDir, startE2eApp, type E2eApp } from '../support/stacks/e2e-app.ts';
import { findFreePort } from '../support/clients/ports.ts';
import { CONTRACT_VERSION } from '@devplein/proto/version';

const ADMIN = 'admin@devplein.test';
const STUDENT = 'student@devplein.test';
const shots = shotsDir();

let workDir: string;
let certs: TestCerts;
let caddy: TestCaddy;
let agent: TestAgent;
let e2e: E2eApp;

beforeAll(async () => {
  requireDockerEngine();
  workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-e2e-status-'));
  [caddy, certs] = await Promise.all([startCaddy(), makeTestCerts(path.join(workDir, 'certs'))]);
  agent = await startTestAgent({ certDir: certs.dir, env: { AGENT_CADDY_ADMIN: caddy.adminUrl, AGENT_CADDY_SERVER: caddy.serverName, AGENT_MYSQL_URL: '' } });
  const linksFile = path.join(workDir, 'agents.json');
  await writeFile(
    linksFile,
    JSON.stringify([
      { name: 'dev1', address: agent.address, siteDomain: 'een.devplein.test' },
      { name: 'dev2', address: `localhost:${await findFreePort()}`, siteDomain: 'twee.devplein.test' },
    ]),
  );
  e2e = await startE2eApp({
    env: { AGENT_LINKS_FILE: linksFile, SITE_DOMAIN: 'een.devplein.test', AGENT_ADDRESS: '', ...agentCertEnv(certs), AGENT_CA_KEY_FILE: certs.caKey, AGENT_DEADLINE_MS: '3000' },
  });
}, 120_000);

afterAll(async () => {
  await e2e?.stop();
  await agent?.stop();
  await caddy?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** The text of one check of a server's card, e.g. 'Docker In orde Docker 20.10…'. */
const check = (page: Page, server: string, testId: string) => page.getByTestId(`status-server-${server}`).getByTestId(testId);

async function expectStatusPage(page: Page): Promise<void> {
  await page.goto(`${e2e.url}/admin/status`);
  await page.getByRole('heading', { name: 'Status', level: 1 }).waitFor();
  const dev1 = page.getByTestId('status-server-dev1');
  await dev1.waitFor();
  await expect.poll(() => check(page, 'dev1', 'status-reachable').innerText()).toMatch(/Bereikbaar\s*✓\s*Ja/);
  expect(await check(page, 'dev1', 'status-part-docker').innerText()).toMatch(/Docker\s*✓\s*In orde\s*Docker \d/);
  expect(await check(page, 'dev1', 'status-part-proxy').innerText()).toMatch(/Caddy\s*✓\s*In orde/);
  // No MariaDB on this dev server: a fault in words, not only in colour.
  expect(await check(page, 'dev1', 'status-part-mysql').innerText()).toMatch(/MariaDB\s*✕\s*Fout\s*geen MySQL\/MariaDB ingesteld/);
  expect(await check(page, 'dev1', 'status-part-mysql').locator('.status-badge').getAttribute('data-level')).toBe('bad');
  expect(await check(page, 'dev1', 'status-disk-docker').innerText()).toMatch(/Schijf \(Docker\)\s*[✓!✕]\s*[\d,]+ (kB|MB|GB|TB) vrij/);
  expect(await check(page, 'dev1', 'status-certificate').innerText()).toMatch(/Certificaat agent\s*[✓!]\s*Certificaat (geldig tot|verloopt over)/);
  expect(await check(page, 'dev1', 'status-backup').innerText()).toContain('Nog geen back-up gemaakt');
  // The real agent speaks this tree's contract.
  expect((await check(page, 'dev1', 'status-contract').innerText()).replace(/\s+/g, ' ')).toContain(`Contractversie ${CONTRACT_VERSION}`);
  expect(await dev1.locator('.status-server-header').innerText()).toMatch(/Probleem/);

  const dev2 = page.getByTestId('status-server-dev2');
  expect(await dev2.locator('.status-server-header').innerText()).toMatch(/dev2\s*twee\.devplein\.test\s*✕\s*onbereikbaar/);
  // In Dutch: gRPC's own words ("No connection established") stay in the log.
  expect(await check(page, 'dev2', 'status-reachable').innerText()).toMatch(/Bereikbaar\s*✕\s*onbereikbaar\s*localhost:\d+: geen verbinding met de agent$/);
  // An unreachable agent cannot say whether its host was backed up: no guess.
  expect(await check(page, 'dev2', 'status-backup').count()).toBe(0);
  expect(await page.getByTestId('status-cp-certificate').innerText()).toMatch(/Clientcertificaat agentverbinding\s*[✓!]\s*Certificaat/);
  expect(await page.getByTestId('status-cp-backup').innerText()).toMatch(/Laatste back-up\s*!\s*Nog geen back-up gemaakt/);
  expect(await page.getByTestId('status-backup-not-included').innerText()).toMatch(/^Niet in de back-ups: bestanden in de containers van studenten/);
}

describe('Status (/admin/status) in Chromium', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  it('shows the admin a card per dev server: the real agent’s parts, disk and certificate, the other one unreachable', async () => {
    const { page, context } = await e2e.signInAs(ADMIN, { width: 1280, height: 900 });
    try {
      await page.goto(`${e2e.url}/`);
      await page.getByTestId('menu-admin-status').click();
      await page.waitForURL(`${e2e.url}/admin/status`);
      await expectStatusPage(page);
      await page.screenshot({ path: path.join(shots, 'admin-status-desktop.png'), fullPage: true });
    } finally {
      await context.close();
    }
  });

  it('invites a dev server (the one-time join command) and revokes a link after a confirmation', async () => {
    const { page, context } = await e2e.signInAs(ADMIN, { width: 1280, height: 900 });
    try {
      await page.goto(`${e2e.url}/admin/status`);
      const links = page.getByTestId('agent-links');
      await links.locator('[data-testid="agent-link"][data-name="dev1"][data-status="active"]').waitFor();
      const form = page.getByRole('form', { name: 'Ontwikkelserver uitnodigen' });
      // A wrong address: the field says why, nothing is made.
      await form.getByLabel('Naam').fill('dev3');
      await form.getByLabel('Adres van de agent').fill('zonder-poort');
      await form.getByLabel('Sitedomein').fill('drie.devplein.test');
      await form.getByRole('button', { name: 'Uitnodigen' }).click();
      await form.getByText('Vul het adres in als naam:poort').waitFor();
      await form.getByLabel('Adres van de agent').fill('dev3.devplein.test:7443');
      await form.getByRole('button', { name: 'Uitnodigen' }).click();
      const command = page.getByTestId('agent-join-command');
      await command.waitFor();
      expect(await command.locator('pre').first().innerText()).toBe('sudo ./install.sh agent --join -');
      expect(await command.locator('pre').nth(1).innerText()).toMatch(new RegExp(`^${e2e.url}#[A-Za-z0-9_-]{43}\\.[0-9a-f]{64}$`));
      await links.locator('[data-testid="agent-link"][data-name="dev3"][data-status="invited"]').waitFor();
      await page.screenshot({ path: path.join(shots, 'admin-status-invite-desktop.png'), fullPage: true });

      // Cancelled: nothing changes. Confirmed: the link is revoked.
      const dev3 = links.locator('[data-testid="agent-link"][data-name="dev3"]');
      page.once('dialog', (dialog) => void dialog.dismiss());
      await dev3.getByRole('button', { name: 'Intrekken' }).click();
      expect(await dev3.getAttribute('data-status')).toBe('invited');
      page.once('dialog', (dialog) => {
        expect(dialog.message()).toContain('Koppeling met ontwikkelserver dev3 intrekken?');
        void dialog.accept();
      });
      await dev3.getByRole('button', { name: 'Intrekken' }).click();
      await links.locator('[data-testid="agent-link"][data-name="dev3"][data-status="revoked"]').waitFor();
      expect(await dev3.getByRole('button', { name: 'Intrekken' }).count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('fits a phone', async () => {
    const { page, context } = await e2e.signInAs(ADMIN, { width: 390, height: 844 });
    try {
      await expectStatusPage(page);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await page.getByTestId('agent-links').locator('[data-testid="agent-link"]').first().waitFor();
      await page.screenshot({ path: path.join(shots, 'admin-status-phone.png'), fullPage: true });
    } finally {
      await context.close();
    }
  });

  it('is not for students: no menu item, and the page says Geen toegang', async () => {
    const { page, context } = await e2e.signInAs(STUDENT);
    try {
      await page.goto(`${e2e.url}/`);
      await page.getByTestId('menu-dockers').waitFor();
      expect(await page.getByTestId('menu-admin-status').count()).toBe(0);
      await page.goto(`${e2e.url}/admin/status`);
      await page.getByTestId('no-access').waitFor();
      expect(await page.getByTestId('status-server-dev1').count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});
