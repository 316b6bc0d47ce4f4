import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { makeTestCerts, agentLinkEnv } from '../support/services/agent.ts';
import { startFakeAgent, type FakeAgent } from '../support/fakes/fake-agent.ts';
import { E2E_TEST_TIMEOUT_MS, shotsDir, startE2eApp, type E2eApp } from '../support/stacks/e2e-app.ts';

/*
 * /databases and /vpn in Chromium. The host agent's database and VPN services are not finished,
 * so the control plane talks to the fake agent (tests/support/fakes/fake-agent.ts) over mTLS: its
 * DatabaseService and VpnService keep databases and peers in memory, and switches make it refuse.
 */

const DEVELOPER = 'ontwikkelaar@devplein.test';
const STUDENT = 'student@devplein.test';
const PHONE = { width: 375, height: 812 };
const TAKEN = 'Deze database bestaat al.';
const DB_UNREACHABLE = 'De databaseserver is op dit moment niet bereikbaar. Probeer het zo opnieuw.';
const DB_UNSUPPORTED = 'Databases worden door de ontwikkelserver nog niet ondersteund.';
const VPN_UNSUPPORTED = 'De VPN wordt door de ontwikkelserver nog niet ondersteund.';

const shots = shotsDir();
let certDir: string;
let agent: FakeAgent;
let e2e: E2eApp;
let developerId: number;

beforeAll(async () => {
  certDir = mkdtempSync(path.join(os.tmpdir(), 'devplein-e2e-dbvpn-'));
  const certs = await makeTestCerts(certDir);
  agent = await startFakeAgent({ certs });
  e2e = await startE2eApp({
    env: {
      SITE_DOMAIN: 'dev.devplein.test',
      ...agentLinkEnv(agent.address, certs),
    },
  });
  developerId = await e2e.userIdOf(DEVELOPER);
});

afterAll(async () => {
  await e2e?.stop();
  await agent?.stop();
  if (certDir) rmSync(certDir, { recursive: true, force: true });
});

const nameInput = (page: Page) => page.getByPlaceholder('3 letters');
const createButton = (page: Page) => page.getByRole('button', { name: 'Aanmaken' });
const checkMark = (page: Page) => page.getByRole('img', { name: 'Naam is beschikbaar' });
const items = (page: Page) => page.getByTestId('database-item');
const dbName = (suffix: string) => `u${developerId}_${suffix}`;

/** Types like a person, key by key (so the input's maxLength and lowercasing act as they would). */
async function typeName(page: Page, text: string): Promise<void> {
  await nameInput(page).fill('');
  await nameInput(page).pressSequentially(text);
}

async function noHorizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

describe('/databases in Chromium (fake agent)', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  it('creates a database (1-3 letters, lowercased, check mark), masks its password and links to the admin', async () => {
    const { context, page } = await e2e.signInAs(DEVELOPER);
    await page.goto(`${e2e.url}/databases`);
    await page.getByRole('heading', { name: 'Databases', level: 1 }).waitFor();
    await page.getByText('Je hebt nog geen databases.').waitFor();
    // The control plane's meta tags (defaults of DB_ADMIN_URL and STUDENT_DB_HOST) feed the page.
    expect(await page.locator('meta[name="db-host"]').getAttribute('content')).toBe('10.8.0.1');
    expect(await page.locator('meta[name="db-port"]').getAttribute('content')).toBe('3306');
    expect(await page.locator('meta[name="db-admin-url"]').getAttribute('content')).toBe('/phpmyadmin/');
    expect(await page.getByTestId('database-host').textContent()).toBe('Host: 10.8.0.1, poort: 3306');
    expect(await createButton(page).isDisabled()).toBe(true);
    expect(await checkMark(page).count()).toBe(0);

    // Capitals become lowercase, a digit is stripped; a name of 1-3 free letters gets the check mark.
    await typeName(page, 'AB1');
    expect(await nameInput(page).inputValue()).toBe('ab');
    await checkMark(page).waitFor();
    expect(await checkMark(page).textContent()).toBe('✓');
    expect(await createButton(page).isEnabled()).toBe(true);

    // A fourth letter cannot be typed.
    await typeName(page, 'abcd');
    expect(await nameInput(page).inputValue()).toBe('abc');

    await createButton(page).click();
    await items(page).first().waitFor();
    expect(await items(page).count()).toBe(1);
    const row = items(page).first();
    await row.getByText(dbName('abc'), { exact: true }).first().waitFor();
    expect(await nameInput(page).inputValue()).toBe('');
    await page.getByText(`Database ${dbName('abc')} is aangemaakt.`).waitFor();

    // The password stays 7 X until shown, and hides again.
    const password = row.getByTestId('database-password');
    expect(await password.textContent()).toBe('XXXXXXX');
    const real = agent.databases.get(dbName('abc'))?.password;
    expect(real).toBeTruthy();
    await row.getByRole('button', { name: `Wachtwoord van ${dbName('abc')} tonen` }).click();
    expect(await password.textContent()).toBe(real);
    await row.getByRole('button', { name: `Wachtwoord van ${dbName('abc')} verbergen` }).click();
    expect(await password.textContent()).toBe('XXXXXXX');

    const adminLink = row.getByRole('link', { name: `${dbName('abc')} beheren in phpMyAdmin` });
    expect(await adminLink.getAttribute('href')).toBe(`/phpmyadmin/?db=${dbName('abc')}&link=true`);

    // The same name again: no check mark, Aanmaken stays off.
    await typeName(page, 'ABC');
    expect(await nameInput(page).inputValue()).toBe('abc');
    expect(await createButton(page).isDisabled()).toBe(true);
    expect(await checkMark(page).count()).toBe(0);
    await page.getByText(TAKEN).waitFor();
    await nameInput(page).fill('');
    await page.screenshot({ path: path.join(shots, 'databases-desktop.png'), fullPage: true });
    await context.close();
  });

  it('drops a database only after Ja! (Nee! keeps it)', async () => {
    const { context, page } = await e2e.signInAs(DEVELOPER);
    await page.goto(`${e2e.url}/databases`);
    await items(page).first().waitFor();
    const drop = page.getByRole('button', { name: `${dbName('abc')} verwijderen` });

    await drop.click();
    await page.getByText(`Wil je "${dbName('abc')}" verwijderen?`).waitFor();
    await page.screenshot({ path: path.join(shots, 'databases-confirm.png'), fullPage: true });
    await page.getByRole('button', { name: 'Nee!' }).click();
    expect(await page.getByText(`Wil je "${dbName('abc')}" verwijderen?`).count()).toBe(0);
    expect(await items(page).count()).toBe(1);
    expect(agent.databases.has(dbName('abc'))).toBe(true);

    await drop.click();
    await page.getByRole('button', { name: 'Ja!' }).click();
    await page.getByText('Je hebt nog geen databases.').waitFor();
    expect(await items(page).count()).toBe(0);
    expect(agent.databases.has(dbName('abc'))).toBe(false);
    await page.reload();
    await page.getByText('Je hebt nog geen databases.').waitFor();
    await context.close();
  });

  it('shows what the server refuses in red headings above the form: 422, 503, 501', async () => {
    const { context, page } = await e2e.signInAs(DEVELOPER);
    await page.goto(`${e2e.url}/databases`);
    await page.getByText('Je hebt nog geen databases.').waitFor();

    // Another tab makes u{id}_xyz while this page's list is stale: the server refuses with 422 errors.db.
    const csrf = (await page.locator('meta[name="csrf-token"]').getAttribute('content')) ?? '';
    const otherTab = await context.request.post(`${e2e.url}/api/user/databases`, {
      data: { db: 'xyz' },
      headers: { 'X-CSRF-TOKEN': csrf, 'X-Requested-With': 'XMLHttpRequest' },
    });
    expect(otherTab.status()).toBe(200);
    await typeName(page, 'xyz');
    await checkMark(page).waitFor();
    await createButton(page).click();
    const heading = page.getByTestId('database-errors').getByRole('heading', { name: TAKEN });
    await heading.waitFor();
    expect(await heading.evaluate((element) => getComputedStyle(element).color)).toBe('rgb(179, 38, 30)');
    // Above the form.
    const errorsBox = await page.getByTestId('database-errors').boundingBox();
    const inputBox = await nameInput(page).boundingBox();
    expect(errorsBox && inputBox && errorsBox.y + errorsBox.height <= inputBox.y).toBe(true);
    // The page loaded the list again: the other tab's database shows, and the name no longer gets a check mark.
    // The list item (the name hint under the field shows the typed name already).
    await items(page).filter({ hasText: dbName('xyz') }).waitFor();
    expect(await items(page).count()).toBe(1);
    expect(await checkMark(page).count()).toBe(0);
    expect(await createButton(page).isDisabled()).toBe(true);
    await page.screenshot({ path: path.join(shots, 'databases-error-422.png'), fullPage: true });

    agent.mode = 'unavailable';
    try {
      await typeName(page, 'def');
      await createButton(page).click();
      await page.getByTestId('database-errors').getByRole('heading', { name: DB_UNREACHABLE }).waitFor();
    } finally {
      agent.mode = 'ok';
    }

    agent.unimplementedMethods.add('createDatabase');
    try {
      await typeName(page, 'def');
      await createButton(page).click();
      await page.getByTestId('database-errors').getByRole('heading', { name: DB_UNSUPPORTED }).waitFor();
    } finally {
      agent.unimplementedMethods.delete('createDatabase');
    }
    expect(await items(page).count()).toBe(1);

    // Typing again clears the refusal; now it works.
    await typeName(page, 'def');
    expect(await page.getByTestId('database-errors').count()).toBe(0);
    await createButton(page).click();
    // The list item, not the name hint under the field (which shows the same name while typing):
    // the phone test below needs the database made before this context closes.
    await items(page).filter({ hasText: dbName('def') }).waitFor();
    await context.close();
  });

  it('fits a 375 px phone', async () => {
    const { context, page } = await e2e.signInAs(DEVELOPER, PHONE);
    await page.goto(`${e2e.url}/databases`);
    await items(page).first().waitFor();
    await typeName(page, 'gh');
    await checkMark(page).waitFor();
    expect(await noHorizontalOverflow(page)).toBeLessThanOrEqual(0);
    // The top bar is fixed: a full-page shot taken while scrolled paints it halfway down.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(shots, 'databases-phone.png'), fullPage: true });
    await page.getByRole('button', { name: `${dbName('def')} verwijderen` }).click();
    await page.getByText(`Wil je "${dbName('def')}" verwijderen?`).waitFor();
    expect(await noHorizontalOverflow(page)).toBeLessThanOrEqual(0);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(shots, 'databases-phone-confirm.png'), fullPage: true });
    await context.close();
  });
});

describe('/vpn in Chromium (fake agent)', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  it('explains the VPN, creates a configuration and offers its download and QR code', async () => {
    const { context, page } = await e2e.signInAs(DEVELOPER);
    await page.goto(`${e2e.url}/vpn`);
    await page.getByRole('heading', { name: 'VPN', level: 1 }).waitFor();
    await page.getByText(/VPN-verbinding nodig/).waitFor();
    const install = page.getByRole('link', { name: 'WireGuard installeren' });
    expect(await install.getAttribute('href')).toBe('https://www.wireguard.com/install/');
    await page.getByTestId('no-vpn').waitFor();
    expect(await page.getByRole('link', { name: 'Download je VPN-configuratie' }).count()).toBe(0);

    // The dev server does not support it yet: the 501 message, nothing made.
    agent.unimplementedMethods.add('createPeer');
    try {
      await page.getByRole('button', { name: 'VPN-configuratie aanmaken' }).click();
      await page.getByRole('alert').filter({ hasText: VPN_UNSUPPORTED }).waitFor();
    } finally {
      agent.unimplementedMethods.delete('createPeer');
    }
    await page.screenshot({ path: path.join(shots, 'vpn-empty.png'), fullPage: true });

    await page.getByRole('button', { name: 'VPN-configuratie aanmaken' }).click();
    const download = page.getByRole('link', { name: 'Download je VPN-configuratie' });
    await download.waitFor();
    const row = await e2e.database.knex('vpn_configs').where({ user_id: developerId }).first<{ identifier: string; address: string }>();
    expect(await download.getAttribute('href')).toBe(`/api/vpn/${row.identifier}`);
    expect(await download.getAttribute('download')).not.toBeNull();
    expect(await page.getByTestId('vpn-address').textContent()).toBe(row.address);
    await page.getByText(/later altijd opnieuw downloaden/).waitFor();
    await page.getByText(/privésleutel/).waitFor();

    // The link's file is the WireGuard configuration.
    const href = (await download.getAttribute('href')) ?? '';
    const file = await page.evaluate(async (url) => {
      const response = await fetch(url, { credentials: 'same-origin' });
      return { status: response.status, text: await response.text() };
    }, href);
    expect(file.status).toBe(200);
    expect(file.text).toContain('[Interface]');
    expect(file.text).toContain('[Peer]');

    // The QR code image loads.
    const qr = page.getByRole('img', { name: /QR-code/ });
    expect(await qr.getAttribute('src')).toBe('/api/vpn/qr');
    await page.waitForFunction(() => {
      const image = document.querySelector<HTMLImageElement>('.vpn-qr img');
      return image !== null && image.complete && image.naturalWidth > 0;
    });
    await page.screenshot({ path: path.join(shots, 'vpn-desktop.png'), fullPage: true });

    // Still there after a reload.
    await page.reload();
    await download.waitFor();
    expect(await page.getByRole('button', { name: 'VPN-configuratie aanmaken' }).count()).toBe(0);
    await context.close();
  });

  it('fits a 375 px phone', async () => {
    const { context, page } = await e2e.signInAs(DEVELOPER, PHONE);
    await page.goto(`${e2e.url}/vpn`);
    await page.getByRole('link', { name: 'Download je VPN-configuratie' }).waitFor();
    await page.waitForFunction(() => {
      const image = document.querySelector<HTMLImageElement>('.vpn-qr img');
      return image !== null && image.complete && image.naturalWidth > 0;
    });
    expect(await noHorizontalOverflow(page)).toBeLessThanOrEqual(0);
    await page.screenshot({ path: path.join(shots, 'vpn-phone.png'), fullPage: true });
    await context.close();
  });
});

describe('a student who is not a developer', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  it('gets no databases or VPN page, no menu items, and the API refuses', async () => {
    const { context, page } = await e2e.signInAs(STUDENT);
    const asked: string[] = [];
    page.on('request', (request) => {
      if (/\/api\/(user\/databases|vpn)/.test(request.url())) asked.push(request.url());
    });
    for (const route of ['databases', 'vpn']) {
      await page.goto(`${e2e.url}/${route}`);
      await page.getByTestId('developer-only').waitFor();
      await page.getByRole('heading', { name: 'Geen toegang' }).waitFor();
      await page.getByText('Databases en de VPN zijn alleen voor ontwikkelaars.').waitFor();
      expect(await page.getByPlaceholder('3 letters').count()).toBe(0);
      expect(await page.getByRole('button', { name: 'VPN-configuratie aanmaken' }).count()).toBe(0);
    }
    await page.screenshot({ path: path.join(shots, 'vpn-student.png'), fullPage: true });
    expect(asked).toEqual([]);
    expect(await page.getByRole('link', { name: 'Databases', exact: true }).count()).toBe(0);

    expect((await context.request.get(`${e2e.url}/api/user/databases`, { headers: { 'X-Requested-With': 'XMLHttpRequest' } })).status()).toBe(403);
    expect((await context.request.get(`${e2e.url}/api/vpn`, { headers: { 'X-Requested-With': 'XMLHttpRequest' } })).status()).toBe(403);
    await context.close();
  });
});
