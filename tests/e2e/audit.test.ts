import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Knex } from 'knex';
import { E2E_TEST_TIMEOUT_MS, shotsDir, startE2eApp, userIdOf, type E2eApp } from '../support/stacks/e2e-app.ts';

/*
 * The audit page (/admin/audit) in a real browser: the table with Dutch action names and the
 * before/after diff, paging with Vorige/Volgende, the person and kind filters, the menu item for
 * admins only, and screenshots (desktop and phone) to look at.
 */

const shots = shotsDir();
let e2e: E2eApp;
const ids = { docent: 0, admin: 0, student: 0 };

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
  e2e = await startE2eApp({
    contextOptions: { locale: 'nl-NL', timezoneId: 'Europe/Amsterdam' },
    // The demo data, then the audit entries: the control plane starts on a full log.
    beforeStart: async ({ database }) => {
      ids.docent = await userIdOf(database.knex, 'docent@devplein.test');
      ids.admin = await userIdOf(database.knex, 'admin@devplein.test');
      ids.student = await userIdOf(database.knex, 'student@devplein.test');
      await seedEntries(database.knex);
    },
  });
}, 120_000);

afterAll(async () => {
  await e2e?.stop();
});

const rows = (page: Page) => page.getByTestId('audit-row');

describe('/admin/audit', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  it('shows the newest entries first with Dutch names and a before/after diff, and pages', async () => {
    const { context, page } = await e2e.signInAs('docent@devplein.test');
    try {
      await page.getByRole('navigation', { name: 'Zijmenu' }).getByRole('link', { name: 'Logboek' }).click();
      await page.waitForURL(`${e2e.url}/admin/audit`);
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
    const { context, page } = await e2e.signInAs('admin@devplein.test');
    try {
      await page.goto(`${e2e.url}/admin/audit`);
      await expect.poll(() => rows(page).count()).toBe(50);
      const docentName = (await e2e.database.knex('users').where({ id: ids.docent }).first<{ name: string }>('name')).name;

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
    const { context, page } = await e2e.signInAs('docent@devplein.test', { width: 390, height: 844 });
    try {
      await page.goto(`${e2e.url}/admin/audit`);
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
    const { context, page } = await e2e.signInAs('student@devplein.test');
    try {
      await page.getByRole('navigation', { name: 'Zijmenu' }).getByRole('link').first().waitFor();
      expect(await page.getByRole('navigation', { name: 'Zijmenu' }).getByRole('link', { name: 'Logboek' }).count()).toBe(0);
      await page.goto(`${e2e.url}/admin/audit`);
      await page.getByTestId('no-access').waitFor();
      expect(await page.getByTestId('audit-table').count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});
