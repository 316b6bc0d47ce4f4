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

/*
 * The audit page (/admin/audit) in a real browser: the table with Dutch action names and the
 * before/after diff, paging with Vorige/Volgende, the person and kind filters, the menu item for
 * admins only, and screenshots (desktop and phone) to look at.
 */

const shots = path.resolve('.tmp/shots');
let database: { url: string; knex: Knex; destroy: () => Promise<void> };
let app: RunningControlPlane;
let browser: Browser;
let webDist: string;
const ids = { docent: 0, admin: 0, student: 0 };

/** A private copy of web/dist: other areas rebuild it while tests run (see tests/e2e/ssh-keys.test.ts). */
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

/** 60 entries a minute apart (so two pages of 50), the newest a docent's level status change. */
async function seedEntries(knex: Knex): Promise<void> {
  const base = Date.parse('2026-09-01T08:00:00Z');
  const rows = [];
  for (let index = 0; index < 57; index++) {
    rows.push({
      actor_id: ids.admin,
      action: index % 2 === 0 ? 'project.approve' : 'team.add-member',
      subject_type: index % 2 === 0 ? 'project' : 'team',
      subject_id: String(index % 2 === 0 ? 1 + (index % 5) : 1),
      before: index % 2 === 0 ? JSON.stringify({ validated: null }) : null,
      after: JSON.stringify(index % 2 === 0 ? { validated: true } : { user_id: ids.student }),
    });
  }
  rows.push(
    { actor_id: ids.docent, action: 'user.verify', subject_type: 'user', subject_id: String(ids.student), before: JSON.stringify({ email_verified_at: null }), after: JSON.stringify({ email_verified_at: '2026-09-01T09:00:00.000Z' }) },
    { actor_id: ids.docent, action: 'user.disable', subject_type: 'user', subject_id: String(ids.student), before: JSON.stringify({ disabled_at: null }), after: JSON.stringify({ disabled_at: '2026-09-01T09:01:00.000Z' }) },
    { actor_id: ids.docent, action: 'level.status', subject_type: 'level', subject_id: '12', before: JSON.stringify({ status: 'locked' }), after: JSON.stringify({ status: 'open' }) },
  );
  await knex('audit_log').insert(rows.map((row, index) => ({ ...row, created_at: new Date(base + index * 60_000) })));
}

beforeAll(async () => {
  webDist = await snapshotWebDist();
  mkdirSync(shots, { recursive: true });
  database = await createTestDatabase();
  await seedDemoData(database.knex);
  const byEmail = async (email: string) => (await database.knex('users').where({ email }).first<{ id: number }>('id')).id;
  ids.docent = await byEmail('docent@devplein.test');
  ids.admin = await byEmail('admin@devplein.test');
  ids.student = await byEmail('student@devplein.test');
  await seedEntries(database.knex);
  app = await startControlPlane({ databaseUrl: database.url, env: { WEB_DIST: webDist } });
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await database?.destroy();
  if (webDist) rmSync(webDist, { recursive: true, force: true });
});

async function signInAs(email: string, viewport = { width: 1280, height: 900 }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport, locale: 'nl-NL', timezoneId: 'Europe/Amsterdam' });
  const page = await context.newPage();
  await page.goto(`${app.url}/auth/school?login_hint=${encodeURIComponent(email)}`);
  await page.waitForURL(`${app.url}/`);
  return { context, page };
}

const rows = (page: Page) => page.getByTestId('audit-row');

describe('/admin/audit', { timeout: 60_000 }, () => {
  it('shows the newest entries first with Dutch names and a before/after diff, and pages', async () => {
    const { context, page } = await signInAs('docent@devplein.test');
    try {
      await page.getByRole('navigation', { name: 'Zijmenu' }).getByRole('link', { name: 'Logboek' }).click();
      await page.waitForURL(`${app.url}/admin/audit`);
      await expect.poll(() => rows(page).count()).toBe(50);
      const headers = await page.getByTestId('audit-table').locator('thead th').allInnerTexts();
      expect(headers.map((text) => text.trim())).toEqual(['Wanneer', 'Wie', 'Wat', 'Onderwerp', 'Voor/Na']);

      const first = rows(page).first();
      expect(await first.innerText()).toContain('Levelstatus gewijzigd');
      expect(await first.locator('del').innerText()).toBe('locked');
      expect(await first.locator('ins').innerText()).toBe('open');
      const second = rows(page).nth(1);
      expect(await second.innerText()).toContain('Account uitgeschakeld');
      expect(await second.innerText()).toMatch(/Gebruiker .+ \(#\d+\)/);
      expect(await page.getByTestId('audit-page-info').innerText()).toBe('Pagina 1 van 2 · 60 acties');
      expect(await page.getByRole('button', { name: 'Vorige' }).isDisabled()).toBe(true);
      await page.screenshot({ path: path.join(shots, 'audit-desktop.png'), fullPage: false });

      await page.getByRole('button', { name: 'Volgende' }).click();
      await page.waitForURL(/page=2/);
      await expect.poll(() => rows(page).count()).toBe(10);
      expect(await page.getByTestId('audit-page-info').innerText()).toBe('Pagina 2 van 2 · 60 acties');
      expect(await page.getByRole('button', { name: 'Volgende' }).isDisabled()).toBe(true);
      await page.getByRole('button', { name: 'Vorige' }).click();
      await expect.poll(() => rows(page).count()).toBe(50);
    } finally {
      await context.close();
    }
  });

  it('filters by person and by kind, and clears the filters', async () => {
    const { context, page } = await signInAs('admin@devplein.test');
    try {
      await page.goto(`${app.url}/admin/audit`);
      await expect.poll(() => rows(page).count()).toBe(50);
      const docentName = (await database.knex('users').where({ id: ids.docent }).first<{ name: string }>('name')).name;

      await page.getByTestId('audit-actor').selectOption({ label: docentName });
      await expect.poll(() => rows(page).count()).toBe(3);
      for (const text of await rows(page).allInnerTexts()) expect(text).toContain(docentName);

      await page.getByTestId('audit-kind').selectOption({ label: 'Accounts' });
      await expect.poll(() => rows(page).count()).toBe(2);
      expect(page.url()).toContain('kind=user');
      await page.screenshot({ path: path.join(shots, 'audit-filtered.png') });

      await page.getByTestId('audit-kind').selectOption({ label: 'Teams' });
      await expect.poll(() => page.getByTestId('audit-empty').innerText()).toBe('Geen acties gevonden met deze filters.');

      await page.getByRole('button', { name: 'Filters wissen' }).click();
      await expect.poll(() => rows(page).count()).toBe(50);
      expect(await page.getByTestId('audit-page-info').innerText()).toBe('Pagina 1 van 2 · 60 acties');
    } finally {
      await context.close();
    }
  });

  it('fits a phone', async () => {
    const { context, page } = await signInAs('docent@devplein.test', { width: 390, height: 844 });
    try {
      await page.goto(`${app.url}/admin/audit`);
      await expect.poll(() => rows(page).count()).toBe(50);
      // Only the table scrolls sideways, never the page.
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await page.screenshot({ path: path.join(shots, 'audit-phone.png') });
    } finally {
      await context.close();
    }
  });

  it('is not for students: no menu item, and the page says Geen toegang', async () => {
    const { context, page } = await signInAs('student@devplein.test');
    try {
      await page.getByRole('navigation', { name: 'Zijmenu' }).getByRole('link').first().waitFor();
      expect(await page.getByRole('navigation', { name: 'Zijmenu' }).getByRole('link', { name: 'Logboek' }).count()).toBe(0);
      await page.goto(`${app.url}/admin/audit`);
      await page.getByTestId('no-access').waitFor();
      expect(await page.getByTestId('audit-table').count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});
