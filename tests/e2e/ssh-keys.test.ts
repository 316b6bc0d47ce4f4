import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { E2E_TEST_TIMEOUT_MS, shotsDir, startE2eApp, type E2eApp } from '../support/stacks/e2e-app.ts';
import { generateSshKeys, type GeneratedSshKey } from '../support/fixtures/ssh-keygen-fixtures.ts';

const shots = shotsDir();
let e2e: E2eApp;
let keys: GeneratedSshKey[];

beforeAll(async () => {
  ({ keys } = generateSshKeys({ kinds: ['ed25519', 'rsa-3072', 'ecdsa-256'], comment: (kind) => `anna-${kind}@laptop` }));
  e2e = await startE2eApp();
});

afterAll(async () => {
  await e2e?.stop();
});

const key = (kind: string): GeneratedSshKey => {
  const found = keys.find((k) => k.kind === kind);
  if (!found) throw new Error(`no ${kind} key`);
  return found;
};

const section = (page: Page) => page.getByTestId('ssh-keys-section');
const keyField = (page: Page) => section(page).getByLabel('Publieke key');
const nameField = (page: Page) => section(page).getByLabel('Naam');
const saveButton = (page: Page) => section(page).getByRole('button', { name: 'Opslaan' });

describe('SSH keys on the profile, in Chromium', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  it('lets a developer add keys (name from the comment, Save only when valid) and shows the ssh-keygen -l line', async () => {
    const { context, page } = await e2e.signInAs('ontwikkelaar@devplein.test');
    await page.goto(`${e2e.url}/profile`);
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
    const { context, page } = await e2e.signInAs('admin@devplein.test');
    await page.goto(`${e2e.url}/profile`);
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
    const { context, page } = await e2e.signInAs('ontwikkelaar@devplein.test');
    await page.goto(`${e2e.url}/profile`);
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
    const { context, page } = await e2e.signInAs('ontwikkelaar@devplein.test', { width: 390, height: 844 });
    await page.goto(`${e2e.url}/profile`);
    await section(page).getByTestId('ssh-key-item').first().waitFor();
    await keyField(page).fill(key('ecdsa-256').publicKey);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await section(page).scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(shots, 'ssh-keys-phone.png'), fullPage: true });
    await context.close();
  });

  it("shows no SSH keys to a student, nor on someone else's profile", async () => {
    const student = await e2e.signInAs('student@devplein.test');
    const studentAsks: string[] = [];
    student.page.on('request', (request) => {
      if (request.url().includes('/api/user/ssh_keys')) studentAsks.push(request.url());
    });
    await student.page.goto(`${e2e.url}/profile`);
    // The section renders together with the profile when allowed: once the profile shows, it would be there.
    await student.page.getByText('student@devplein.test').first().waitFor();
    expect(await section(student.page).count()).toBe(0);
    expect(studentAsks).toEqual([]);
    await student.context.close();

    const developer = await e2e.signInAs('ontwikkelaar@devplein.test');
    const admin = await e2e.database.knex('users').where({ email: 'admin@devplein.test' }).first<{ id: number; name_slug: string }>();
    await developer.page.goto(`${e2e.url}/profile/${admin.id}/${admin.name_slug}`);
    await developer.page.getByText('admin@devplein.test').first().waitFor();
    expect(await section(developer.page).count()).toBe(0);
    // …while on the developer's own profile it is there.
    await developer.page.goto(`${e2e.url}/profile`);
    await section(developer.page).waitFor();
    await developer.context.close();
  });
});
