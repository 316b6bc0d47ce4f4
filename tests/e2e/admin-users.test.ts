import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { E2E_TEST_TIMEOUT_MS, shotsDir, startE2eApp, type E2eApp } from '../support/stacks/e2e-app.ts';

/*
 * The users admin in Chromium: the three filters of spec §2, Activeer / Disable, disabling signs
 * the user out in their own browser at once, the developer flag, the delete confirmation and
 * what it says when the dev server does not answer (this file runs without an agent: every
 * access change is left for the retry and the page says so), and filtering 400 users (how fast
 * that is: bench/admin-screens.bench.ts, not a timed test).
 */

const shots = shotsDir();
let e2e: E2eApp;

beforeAll(async () => {
  e2e = await startE2eApp();
});

afterAll(async () => {
  await e2e?.stop();
});

const table = (page: Page) => page.getByTestId('admin-users');
const rows = (page: Page) => page.getByTestId('admin-user-row');
const row = (page: Page, name: string) => rows(page).filter({ has: page.getByRole('rowheader', { name: new RegExp(`^${name}`) }) });
const notActivated = (page: Page) => page.getByRole('checkbox', { name: 'Niet geactiveerd' });
const rowNames = async (page: Page) => (await rows(page).getByTestId('user-name').allInnerTexts()).map((t) => t.trim());

async function openUsersPage(page: Page): Promise<void> {
  await page.goto(`${e2e.url}/admin/users`);
  await page.getByRole('heading', { name: 'Gebruikers', level: 1 }).waitFor();
  await table(page).waitFor();
}

/** What the page's own fetch gets from the API (the session cookie of that browser context). */
const apiStatus = (page: Page, url: string) =>
  page.evaluate(async (path) => (await fetch(path, { headers: { 'X-Requested-With': 'XMLHttpRequest' } })).status, url);

describe('Users admin (/admin/users) in Chromium', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  it('filters by the not-activated checkbox (on by default), by cohort (geen too) and by name', async () => {
    const { context, page } = await e2e.signInAs('admin@devplein.test');
    await openUsersPage(page);
    expect(await notActivated(page).isChecked()).toBe(true);
    expect(await rowNames(page)).toEqual(['import', 'Nina Nieuw', 'Saar Prins']);
    const nina = row(page, 'Nina Nieuw');
    expect(await nina.getByRole('cell').nth(1).innerText()).toBe('SD23');
    await nina.getByRole('button', { name: 'Verwijder Nina Nieuw' }).waitFor();
    expect(await nina.getByRole('button', { name: /Activeer/ }).innerText()).toBe('Activeer');
    await page.screenshot({ path: path.join(shots, 'admin-users-not-activated.png'), fullPage: true });

    // Off: the verified users; Disable for active ones, Activeer for the disabled one.
    await notActivated(page).uncheck();
    await row(page, 'Sam Student').waitFor();
    expect(await rowNames(page)).not.toContain('Nina Nieuw');
    expect(await row(page, 'Sam Student').getByRole('button', { name: /Disable/ }).innerText()).toBe('Disable');
    const rick = row(page, 'Rick Blom');
    await rick.getByText('Uitgeschakeld').waitFor();
    expect(await rick.getByRole('button', { name: /Activeer/ }).innerText()).toBe('Activeer');
    expect(await row(page, 'Zoë Zonderklas').getByRole('cell').nth(1).innerText()).toBe('geen');

    // The admin's own row: no Disable, no delete.
    const own = row(page, 'Anna Admin');
    expect(await own.getByRole('button', { name: 'Verwijder Anna Admin' }).isDisabled()).toBe(true);
    expect(await own.getByRole('button', { name: /Disable/ }).isDisabled()).toBe(true);
    await page.screenshot({ path: path.join(shots, 'admin-users-verified.png'), fullPage: true });

    // Cohort select: the cohorts and 'geen'.
    const cohort = page.getByLabel('Klas', { exact: true });
    expect(await cohort.locator('option').allInnerTexts()).toEqual(['Alle klassen', 'SD20', 'SD21', 'SD22', 'SD23', 'geen']);
    await cohort.selectOption('geen');
    await expect.poll(() => rowNames(page)).toContain('Zoë Zonderklas');
    const noGroup = await rowNames(page);
    expect(noGroup).toEqual(expect.arrayContaining(['Anna Admin', 'Dirk Docent', 'Rick Blom', 'Chloé Lambert']));
    expect(noGroup).not.toContain('Sam Student');
    await cohort.selectOption('SD22');
    await expect.poll(() => rowNames(page)).toContain('Olga Ontwikkelaar');
    expect(await rowNames(page)).not.toContain('Zoë Zonderklas');

    // Name: part of it, case and accents do not matter.
    await cohort.selectOption('');
    await page.getByLabel('Naam', { exact: true }).fill('chloe');
    await expect.poll(() => rowNames(page)).toEqual(['Chloé Lambert']);
    await page.getByLabel('Naam', { exact: true }).fill('niemand-heet-zo');
    await page.getByTestId('users-empty').waitFor();
    await context.close();
  });

  it('activates a new account with Activeer: it leaves the not-activated list and gets Disable', async () => {
    const { context, page } = await e2e.signInAs('docent@devplein.test');
    await openUsersPage(page);
    await row(page, 'Nina Nieuw').getByRole('button', { name: 'Activeer Nina Nieuw' }).click();
    await page.getByText('Nina Nieuw is geactiveerd.').waitFor();
    expect(await rowNames(page)).toEqual(['import', 'Saar Prins']);
    await notActivated(page).uncheck();
    await row(page, 'Nina Nieuw').getByRole('button', { name: 'Disable Nina Nieuw' }).waitFor();
    expect((await e2e.database.knex('users').where({ email: 'nieuw@devplein.test' }).first('email_verified_at')).email_verified_at).not.toBeNull();
    await context.close();
  });

  it('Disable signs the user out in their own browser at once (two contexts); Activeer lets them back in', async () => {
    const admin = await e2e.signInAs('admin@devplein.test');
    const student = await e2e.signInAs('zonderklas@devplein.test');
    expect(await apiStatus(student.page, '/api/user')).toBe(200);

    await openUsersPage(admin.page);
    await notActivated(admin.page).uncheck();
    const zoe = row(admin.page, 'Zoë Zonderklas');
    await zoe.getByRole('button', { name: 'Disable Zoë Zonderklas' }).click();
    // No agent in this file: the account change stands, the page says what the dev server has not done yet.
    const warning = admin.page.getByRole('alert').filter({ hasText: 'Zoë Zonderklas is uitgeschakeld en overal uitgelogd.' });
    await warning.waitFor();
    expect(await warning.innerText()).toMatch(/Nog niet gedaan: SSH-toegang intrekken \(ontwikkelserver dev1 is niet bereikbaar\)\. Dit wordt vanzelf opnieuw geprobeerd\.$/);
    await zoe.getByText('Uitgeschakeld').waitFor();
    await zoe.getByText('Wacht op ontwikkelserver').waitFor();
    await admin.page.screenshot({ path: path.join(shots, 'admin-users-disable-unreachable.png') });
    await admin.page.getByRole('button', { name: 'Sluiten' }).click();
    expect(await warning.count()).toBe(0);

    // The student's very next request is refused, and a new sign-in does not get them in.
    expect(await apiStatus(student.page, '/api/user')).toBe(401);
    await student.page.goto(`${e2e.url}/auth/school?login_hint=${encodeURIComponent('zonderklas@devplein.test')}`);
    await student.page.waitForURL(`${e2e.url}/not_verified`);
    expect(await apiStatus(student.page, '/api/user')).toBe(401);

    await zoe.getByRole('button', { name: 'Activeer Zoë Zonderklas' }).click();
    await admin.page.getByText(/^Zoë Zonderklas is geactiveerd\./).waitFor();
    await student.page.goto(`${e2e.url}/auth/school?login_hint=${encodeURIComponent('zonderklas@devplein.test')}`);
    await student.page.waitForURL(`${e2e.url}/`);
    expect(await apiStatus(student.page, '/api/user')).toBe(200);
    await student.context.close();
    await admin.context.close();
  });

  it('sets and clears the developer flag with the row’s checkbox; an admin cannot clear their own', async () => {
    const { context, page } = await e2e.signInAs('admin@devplein.test');
    await openUsersPage(page);
    await notActivated(page).uncheck();
    const olga = row(page, 'Olga Ontwikkelaar');
    const flag = olga.getByRole('checkbox', { name: 'Ontwikkelaar: Olga Ontwikkelaar' });
    expect(await flag.isChecked()).toBe(true);
    expect(await row(page, 'Sam Student').getByRole('checkbox', { name: 'Ontwikkelaar: Sam Student' }).isChecked()).toBe(false);
    expect(await row(page, 'Anna Admin').getByRole('checkbox', { name: 'Ontwikkelaar: Anna Admin' }).isDisabled()).toBe(true);

    // The box follows the server's answer (a click, not uncheck(): the state changes once the change is made).
    await flag.click();
    const cleared = page.getByRole('alert').filter({ hasText: 'Olga Ontwikkelaar is geen ontwikkelaar meer en is overal uitgelogd.' });
    await cleared.waitFor();
    expect(await cleared.innerText()).toContain('Nog niet gedaan:');
    expect(await flag.isChecked()).toBe(false);
    expect((await e2e.database.knex('users').where({ email: 'ontwikkelaar@devplein.test' }).first('developer')).developer).toBe(false);
    await page.screenshot({ path: path.join(shots, 'admin-users-developer-cleared.png') });

    await flag.click();
    await page.getByText(/^Olga Ontwikkelaar is nu ontwikkelaar\./).waitFor();
    expect((await e2e.database.knex('users').where({ email: 'ontwikkelaar@devplein.test' }).first('developer')).developer).toBe(true);
    await page.screenshot({ path: path.join(shots, 'admin-users-developer-set.png') });
    await context.close();

    // On a phone: the column fits, the status stays readable.
    const phone = await e2e.signInAs('admin@devplein.test', { width: 390, height: 844 });
    await openUsersPage(phone.page);
    await notActivated(phone.page).uncheck();
    await phone.page.getByLabel('Naam', { exact: true }).fill('olga');
    const phoneFlag = row(phone.page, 'Olga Ontwikkelaar').getByRole('checkbox', { name: 'Ontwikkelaar: Olga Ontwikkelaar' });
    await phoneFlag.click();
    await phone.page.getByRole('alert').filter({ hasText: 'Olga Ontwikkelaar is geen ontwikkelaar meer' }).waitFor();
    await phone.page.screenshot({ path: path.join(shots, 'admin-users-developer-phone.png'), fullPage: true });
    expect(await phone.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
    await phone.page.getByRole('button', { name: 'Sluiten' }).click();
    await phoneFlag.click();
    await phone.page.getByText(/^Olga Ontwikkelaar is nu ontwikkelaar\./).waitFor();
    await phone.context.close();
  });

  it('asks before deleting, says what happens to projects, databases, VPN and SSH keys, and what is left when the dev server does not answer', async () => {
    const { context, page } = await e2e.signInAs('admin@devplein.test');
    await openUsersPage(page);
    await notActivated(page).uncheck();
    await row(page, 'Sam Student').getByRole('button', { name: 'Verwijder Sam Student' }).click();
    const dialog = page.getByRole('dialog', { name: 'Sam Student verwijderen?' });
    await dialog.waitFor();
    for (const topic of ['Projecten:', 'Databases:', 'VPN-configuratie:', 'SSH keys:']) await dialog.getByText(topic).waitFor();
    await dialog.getByRole('button', { name: 'Ja, verwijderen' }).click();
    await dialog
      .getByRole('alert')
      .getByText(/^Sam Student is uitgeschakeld maar nog niet verwijderd: ontwikkelserver dev1 antwoordde niet of weigerde\. Nog te doen: project sam-portfolio verwijderen\./)
      .waitFor();
    await page.screenshot({ path: path.join(shots, 'admin-users-delete-unreachable.png') });
    await dialog.getByRole('button', { name: 'Annuleren' }).click();
    expect(await dialog.count()).toBe(0);
    // Sam stays, disabled (the delete revoked first).
    await row(page, 'Sam Student').getByText('Uitgeschakeld').waitFor();

    // Someone without anything on the dev server goes.
    await row(page, 'Rick Blom').getByRole('button', { name: 'Verwijder Rick Blom' }).click();
    await page.getByRole('dialog', { name: 'Rick Blom verwijderen?' }).getByRole('button', { name: 'Ja, verwijderen' }).click();
    await page.getByText('Rick Blom is verwijderd.').waitFor();
    expect(await row(page, 'Rick Blom').count()).toBe(0);
    expect(await e2e.database.knex('users').where({ name: 'Rick Blom' }).first('id')).toBeUndefined();
    await context.close();
  });

  it('filters 400 users at once and stays usable on a phone', async () => {
    const existing = Number(((await e2e.database.knex('users').count({ n: '*' })) as [{ n: string }])[0].n);
    const groups = await e2e.database.knex('groups').pluck<number[]>('id');
    await e2e.database.knex.batchInsert(
      'users',
      Array.from({ length: 400 - existing }, (_, i) => ({
        name: `Leerling ${String(i).padStart(3, '0')} ${i % 3 === 0 ? 'de Vries' : 'Jansen'}`,
        name_slug: `leerling-${i}`,
        email: `leerling${i}@student.devplein.test`,
        email_verified_at: i % 10 === 0 ? null : new Date(),
        group_id: groups[i % groups.length] ?? null,
      })),
      200,
    );
    const { context, page } = await e2e.signInAs('admin@devplein.test');
    await openUsersPage(page);
    await notActivated(page).uncheck();
    await expect.poll(async () => rows(page).count()).toBeGreaterThan(300);

    await page.getByLabel('Naam', { exact: true }).fill('leerling 12');
    // 121–129 (120 is not activated, so it is in the other list). How fast: bench/admin-screens.bench.ts.
    const expected = Array.from({ length: 9 }, (_, i) => `Leerling 12${i + 1} ${(i + 1) % 3 === 0 ? 'de Vries' : 'Jansen'}`);
    await expect.poll(() => rowNames(page)).toEqual(expected);
    await context.close();

    const phone = await e2e.signInAs('admin@devplein.test', { width: 390, height: 844 });
    await openUsersPage(phone.page);
    await phone.page.getByLabel('Klas', { exact: true }).selectOption('SD23');
    await row(phone.page, 'Saar Prins').waitFor();
    await phone.page.screenshot({ path: path.join(shots, 'admin-users-phone.png'), fullPage: true });
    const overflow = await phone.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await phone.context.close();
  });

  it('downloads every user as a spreadsheet', async () => {
    const { context, page } = await e2e.signInAs('admin@devplein.test');
    await page.goto(`${e2e.url}/admin/users`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Alle gebruikers downloaden (CSV)' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^gebruikers-\d{4}-\d{2}-\d{2}\.csv$/);
    const lines = readFileSync(await download.path(), 'utf8').split('\r\n');
    expect(lines[0]).toBe('\uFEFFNaam;E-mailadres;Klas;Geactiveerd op;Uitgeschakeld op;Ontwikkelaar');
    expect(lines.some((line) => line.includes(';admin@devplein.test;'))).toBe(true);
    await page.screenshot({ path: path.join(shots, 'admin-users-download.png') });
    await context.close();
  });

  it('shows students no users admin', async () => {
    // Sam Student was disabled by the delete above: Zoë is the student here.
    const { context, page } = await e2e.signInAs('zonderklas@devplein.test');
    await page.goto(`${e2e.url}/admin/users`);
    await page.getByText('Geen toegang', { exact: false }).first().waitFor();
    expect(await table(page).count()).toBe(0);
    await context.close();
  });
});
