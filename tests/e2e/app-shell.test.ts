import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { E2E_TEST_TIMEOUT_MS, shotsDir, signIn, startE2eApp, type E2eApp, type SignedIn } from '../support/stacks/e2e-app.ts';

const shots = shotsDir();
let e2e: E2eApp;

beforeAll(async () => {
  e2e = await startE2eApp();
});

afterAll(async () => {
  await e2e?.stop();
});

const STUDENT_ADMIN_ITEMS = ['Dockers', 'Projecten ter goedkeuring', 'Alle projecten', 'Licenties', 'Groepen', 'Logboek', 'Status', 'Overzicht'];
const ADMIN_DEVELOPER_ITEMS = [
  'Gebruikers',
  'Teams',
  'Meelopers',
  'Levels per student',
  'Levelinhoud',
  'Levelcategorieën',
];

/** Signs in, but does not wait for Home: each test checks where the user lands. */
const signInAs = (email: string): Promise<SignedIn> => e2e.signInAs(email, { width: 1280, height: 800 }, { waitForApp: false });

/** Labels of the side menu's links, per section heading. */
async function sideMenu(page: Page): Promise<string[]> {
  const nav = page.getByRole('navigation', { name: 'Zijmenu' });
  await nav.waitFor();
  return (await nav.getByRole('link').allInnerTexts()).map((text) => text.trim());
}

async function adminSection(page: Page): Promise<string[]> {
  await page.getByRole('navigation', { name: 'Zijmenu' }).getByRole('link').first().waitFor();
  const section = page.getByRole('navigation', { name: 'Zijmenu' }).getByRole('group', { name: 'Admin' });
  if ((await section.count()) === 0) return [];
  return (await section.getByRole('link').allInnerTexts()).map((text) => text.trim());
}

describe('the app shell in Chromium, signed in through the real OIDC flow', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  it('shows a student Home with the student menus and no admin section', async () => {
    const { context, page } = await signInAs('student@devplein.test');
    await page.waitForURL(`${e2e.url}/`);
    const items = await sideMenu(page);
    expect(items).toEqual(expect.arrayContaining(['Dockers', 'Websites', 'Profiel bewerken', 'Levels', 'Handige links']));
    expect(items).not.toContain('Inloggen');
    expect(items).not.toContain('Databases');
    expect(items).not.toContain('VPN');
    expect(await adminSection(page)).toEqual([]);
    expect(await page.getByRole('link', { name: 'Sam Student' }).getAttribute('href')).toMatch(/^\/profile\/\d+\/sam-student$/);
    await page.screenshot({ path: path.join(shots, 'home-student.png') });
    await context.close();
  });

  it('shows an admin who is a developer every admin item of §6, plus Databases and VPN', async () => {
    const { context, page } = await signInAs('admin@devplein.test');
    await page.waitForURL(`${e2e.url}/`);
    const items = await sideMenu(page);
    expect(items).toEqual(expect.arrayContaining(['Databases', 'VPN']));
    expect(await adminSection(page)).toEqual(expect.arrayContaining([...ADMIN_DEVELOPER_ITEMS, ...STUDENT_ADMIN_ITEMS]));
    await page.screenshot({ path: path.join(shots, 'home-admin.png') });
    await context.close();
  });

  it('shows an admin who is not a developer only the admin items §6 allows', async () => {
    const { context, page } = await signInAs('docent@devplein.test');
    await page.waitForURL(`${e2e.url}/`);
    const admin = await adminSection(page);
    expect(admin).toEqual(expect.arrayContaining(STUDENT_ADMIN_ITEMS));
    for (const item of ADMIN_DEVELOPER_ITEMS) expect(admin).not.toContain(item);
    const items = await sideMenu(page);
    expect(items).not.toContain('Databases');
    await context.close();
  });

  it('sends a not-activated user to /not_verified with both Dutch sentences', async () => {
    const { context, page } = await signInAs('nieuw@devplein.test');
    await page.waitForURL(`${e2e.url}/not_verified`);
    await page.getByText('Sorry je account is nog niet geactiveerd!').waitFor();
    await page.getByText('Vraag een vak docent om je account te activeren.').waitFor();
    await page.screenshot({ path: path.join(shots, 'not-verified.png') });
    await context.close();
  });

  it('sends a signed-out visitor of a protected route to /login, whose link starts the school sign-in', async () => {
    const context = await e2e.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${e2e.url}/dockers`);
    await page.waitForURL(`${e2e.url}/login`);
    const link = page.getByRole('link', { name: 'Inloggen met je schoolaccount' });
    expect(await link.getAttribute('href')).toBe('/auth/school');
    await page.screenshot({ path: path.join(shots, 'login.png') });
    await link.click();
    await page.waitForURL(/\/dev-idp\/interaction\//);
    await page.getByRole('button', { name: /Sam Student/ }).click();
    await page.waitForURL(`${e2e.url}/`);
    expect(await sideMenu(page)).toContain('Dockers');
    await context.close();
  });

  it('logs out (Uitloggen is a button: the logout is a POST; tests/e2e/logout-shared-pc.test.ts has the whole story)', async () => {
    const { context, page } = await signInAs('ontwikkelaar@devplein.test');
    await page.waitForURL(`${e2e.url}/`);
    await page.getByRole('navigation', { name: 'Hoofdmenu' }).getByRole('button', { name: 'Uitloggen' }).click();
    await page.getByRole('navigation', { name: 'Zijmenu' }).getByRole('link', { name: 'Inloggen' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    expect(await sideMenu(page)).toContain('Inloggen');
    const status = await page.evaluate(async () => (await fetch('/api/user')).status);
    expect(status).toBe(401);
    await context.close();
  });

  it('is usable on a phone: the menu button opens the side menu', async () => {
    const context = await e2e.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    await signIn(page, e2e.url, 'student@devplein.test');
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('navigation', { name: 'Zijmenu' }).getByRole('link', { name: 'Websites' }).click();
    await page.waitForURL(`${e2e.url}/websites`);
    await page.screenshot({ path: path.join(shots, 'phone-websites.png') });
    await context.close();
  });
});
