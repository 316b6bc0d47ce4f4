import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Knex } from 'knex';
import { createTestDatabase } from '../support/database.ts';
import { seedDemoData } from '../../control-plane/src/db/seed.ts';
import { startControlPlane, type RunningControlPlane } from '../support/control-plane.ts';
import { launchBrowser } from '../support/browser.ts';
import { generateSshKeys, type GeneratedSshKey } from '../../control-plane/src/ssh/ssh-keygen-fixtures.ts';

const shots = path.resolve('.tmp/shots');
let database: { url: string; knex: Knex; destroy: () => Promise<void> };
let app: RunningControlPlane;
let browser: Browser;
let keys: GeneratedSshKey[];
let webDist: string;

/**
 * A private copy of the built web app: other areas rebuild web/dist while tests run, and a page
 * whose scripts vanish halfway never renders. Retries until the copy is whole (index.html's assets present).
 */
async function snapshotWebDist(): Promise<string> {
  const target = mkdtempSync(path.join(tmpdir(), 'devplein-web-dist-'));
  for (let attempt = 0; attempt < 20; attempt++) {
    rmSync(target, { recursive: true, force: true });
    try {
      cpSync(path.resolve('web/dist'), target, { recursive: true });
      const index = readFileSync(path.join(target, 'index.html'), 'utf8');
      const assets = [...index.matchAll(/(?:src|href)="\/(assets\/[^"]+)"/g)].map((match) => match[1] ?? '');
      if (assets.length > 0 && assets.every((asset) => existsSync(path.join(target, asset)))) return target;
    } catch {
      // A build was replacing the files; try again.
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error('web/dist is missing or incomplete: run `npm run build -w @devplein/web` first');
}

beforeAll(async () => {
  webDist = await snapshotWebDist();
  mkdirSync(shots, { recursive: true });
  ({ keys } = generateSshKeys({ kinds: ['ed25519', 'rsa-3072', 'ecdsa-256'], comment: (kind) => `anna-${kind}@laptop` }));
  database = await createTestDatabase();
  await seedDemoData(database.knex);
  app = await startControlPlane({ databaseUrl: database.url, env: { WEB_DIST: webDist } });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await database?.destroy();
  if (webDist) rmSync(webDist, { recursive: true, force: true });
});

const key = (kind: string): GeneratedSshKey => {
  const found = keys.find((k) => k.kind === kind);
  if (!found) throw new Error(`no ${kind} key`);
  return found;
};

async function signInAs(email: string, viewport = { width: 1280, height: 900 }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  await page.goto(`${app.url}/auth/school?login_hint=${encodeURIComponent(email)}`);
  await page.waitForURL(`${app.url}/`);
  return { context, page };
}

const section = (page: Page) => page.getByTestId('ssh-keys-section');
const keyField = (page: Page) => section(page).getByLabel('Publieke key');
const nameField = (page: Page) => section(page).getByLabel('Naam');
const saveButton = (page: Page) => section(page).getByRole('button', { name: 'Opslaan' });

describe('SSH keys on the profile, in Chromium', () => {
  it('lets a developer add keys (name from the comment, Save only when valid) and shows the ssh-keygen -l line', async () => {
    const { context, page } = await signInAs('ontwikkelaar@devplein.test');
    await page.goto(`${app.url}/profile`);
    await section(page).getByRole('heading', { name: 'SSH keys' }).waitFor();
    await section(page).getByText('Je hebt nog geen SSH keys toegevoegd.').waitFor();
    expect(await saveButton(page).isDisabled()).toBe(true);

    // Typing something that is not a key: the §8 message, Save stays off.
    await keyField(page).fill('ssh-rsa');
    await section(page).getByText('Dit is geen geldige SSH key.').waitFor();
    expect(await saveButton(page).isDisabled()).toBe(true);
    await keyField(page).fill(key('ed25519').privateKey);
    await section(page).getByText('Dit is geen geldige SSH key.').waitFor();
    await section(page).getByText(/Let op: dit is een privé-key/).waitFor();
    expect(await nameField(page).inputValue()).toBe('');
    expect(await saveButton(page).isDisabled()).toBe(true);
    await page.screenshot({ path: path.join(shots, 'ssh-keys-invalid.png'), fullPage: true });

    // A real key: message gone, name filled from the comment, Save on.
    await keyField(page).fill(`${key('ed25519').publicKey}\n`);
    expect(await section(page).getByText('Dit is geen geldige SSH key.').count()).toBe(0);
    expect(await nameField(page).inputValue()).toBe('anna-ed25519@laptop');
    expect(await saveButton(page).isEnabled()).toBe(true);
    await saveButton(page).click();
    await section(page).getByText('Je SSH key is opgeslagen.').waitFor();
    const expectedLine = `256 ${key('ed25519').fingerprint} anna-ed25519@laptop (ED25519)`;
    await section(page).getByText(expectedLine).waitFor();
    expect(await keyField(page).inputValue()).toBe('');
    expect(await nameField(page).inputValue()).toBe('');

    // A name typed by the student wins over the comment.
    await nameField(page).fill('Werk-pc');
    await keyField(page).fill(key('rsa-3072').publicKey);
    expect(await nameField(page).inputValue()).toBe('Werk-pc');
    await saveButton(page).click();
    await section(page).getByText(`3072 ${key('rsa-3072').fingerprint} Werk-pc (RSA)`).waitFor();
    expect(await section(page).getByTestId('ssh-key-item').count()).toBe(2);
    await page.screenshot({ path: path.join(shots, 'ssh-keys-developer.png'), fullPage: true });
    await context.close();
  });

  it('shows SshKey bestaat al. and clears the form when another user uploads the same key', async () => {
    const { context, page } = await signInAs('admin@devplein.test');
    await page.goto(`${app.url}/profile`);
    await keyField(page).fill(key('ed25519').publicKey);
    await saveButton(page).click();
    await section(page).getByText('SshKey bestaat al.').waitFor();
    expect(await keyField(page).inputValue()).toBe('');
    expect(await nameField(page).inputValue()).toBe('');
    expect(await saveButton(page).isDisabled()).toBe(true);
    expect(await section(page).getByTestId('ssh-key-item').count()).toBe(0);
    await page.screenshot({ path: path.join(shots, 'ssh-keys-duplicate.png'), fullPage: true });
    await context.close();
  });

  it('removes a key only after confirmation', async () => {
    const { context, page } = await signInAs('ontwikkelaar@devplein.test');
    await page.goto(`${app.url}/profile`);
    const items = section(page).getByTestId('ssh-key-item');
    await items.first().waitFor();
    expect(await items.count()).toBe(2);
    await section(page).getByRole('button', { name: 'Werk-pc verwijderen' }).click();
    await section(page).getByText('Weet je het zeker?').waitFor();
    await section(page).getByRole('button', { name: 'Nee', exact: true }).click();
    expect(await items.count()).toBe(2);
    await section(page).getByRole('button', { name: 'Werk-pc verwijderen' }).click();
    await section(page).getByRole('button', { name: 'Ja, verwijderen' }).click();
    await section(page).getByText(`3072 ${key('rsa-3072').fingerprint}`, { exact: false }).waitFor({ state: 'detached' });
    expect(await items.count()).toBe(1);
    await page.reload();
    await items.first().waitFor();
    expect(await items.count()).toBe(1);
    await context.close();
  });

  it('fits a phone screen', async () => {
    const { context, page } = await signInAs('ontwikkelaar@devplein.test', { width: 390, height: 844 });
    await page.goto(`${app.url}/profile`);
    await section(page).getByTestId('ssh-key-item').first().waitFor();
    await keyField(page).fill(key('ecdsa-256').publicKey);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await section(page).scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(shots, 'ssh-keys-phone.png'), fullPage: true });
    await context.close();
  });

  it("shows no SSH keys to a student, nor on someone else's profile", async () => {
    const student = await signInAs('student@devplein.test');
    const studentAsks: string[] = [];
    student.page.on('request', (request) => {
      if (request.url().includes('/api/user/ssh_keys')) studentAsks.push(request.url());
    });
    await student.page.goto(`${app.url}/profile`);
    // The section renders together with the profile when allowed: once the profile shows, it would be there.
    await student.page.getByText('student@devplein.test').first().waitFor();
    expect(await section(student.page).count()).toBe(0);
    expect(studentAsks).toEqual([]);
    await student.context.close();

    const developer = await signInAs('ontwikkelaar@devplein.test');
    const admin = await database.knex('users').where({ email: 'admin@devplein.test' }).first<{ id: number; name_slug: string }>();
    await developer.page.goto(`${app.url}/profile/${admin.id}/${admin.name_slug}`);
    await developer.page.getByText('admin@devplein.test').first().waitFor();
    expect(await section(developer.page).count()).toBe(0);
    // …while on the developer's own profile it is there.
    await developer.page.goto(`${app.url}/profile`);
    await section(developer.page).waitFor();
    await developer.context.close();
  });
});
