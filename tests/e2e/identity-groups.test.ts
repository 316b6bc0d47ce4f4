/**
 * The school's groups from the identity provider, in Chromium (issue 21, part 4): with
 * OIDC_GROUPS_CLAIM=groups and the example mapping of deploy/oidc, a teacher imported by address
 * (activated, put in SD23 by hand) picks her account in the development provider, whose id_token
 * carries a `groups` claim, and lands signed in with the mapped cohort (SD25, overwriting the
 * manual SD23), teams (Docenten, Webshop) and admin menu. A new person with groups lands on the
 * "not activated" page, already in the cohort the groups give. Screenshots of the profile at
 * desktop and phone width.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { E2E_TEST_TIMEOUT_MS, shotsDir, signIn, startE2eApp, type E2eApp } from '../support/stacks/e2e-app.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAPPING = path.join(root, 'deploy/oidc/group-mapping.example.json');
const GIJS = 'gijs.groepen@devplein.test';
const GREET = 'greet.groepen@devplein.test';
const shots = shotsDir();

/** The value cell of a row of the profile table ('Klas', 'Teams'). */
const profileCell = (page: Page, label: string) => page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: label, exact: true }) }).getByRole('cell');

describe('groups from the development identity provider', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  let e2e: E2eApp;

  beforeAll(async () => {
    e2e = await startE2eApp({
      env: { OIDC_GROUPS_CLAIM: 'groups', OIDC_GROUPS_MAPPING_FILE: MAPPING },
      beforeStart: async ({ database }) => {
        const sd23 = await database.knex('groups').where({ cohort: 'SD23' }).first<{ id: number }>('id');
        await database.knex('users').insert({ name: 'Gijs Groepen', name_slug: 'gijs-groepen', email: GIJS, email_verified_at: new Date(), admin: false, developer: false, group_id: sd23.id });
      },
    });
  });

  afterAll(async () => {
    await e2e?.stop();
  });

  it('a teacher picks her account and lands in the mapped cohort and teams, with the admin menu', async () => {
    const context = await e2e.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${e2e.url}/login`);
    await page.getByRole('link', { name: 'Inloggen met je schoolaccount' }).click();
    // The development provider's picker lists the account with groups.
    await page.getByRole('button', { name: /Gijs Groepen/ }).click();
    await page.waitForURL(`${e2e.url}/`);
    await page.getByTestId('menu-section-admin').waitFor();

    await page.goto(`${e2e.url}/profile`);
    await expect.poll(() => profileCell(page, 'Klas').innerText()).toBe('SD25');
    expect(await profileCell(page, 'Teams').innerText()).toBe('Docenten, Webshop');
    await page.screenshot({ path: path.join(shots, 'identity-groups-profile.png'), fullPage: true });

    // The server agrees: an admin route answers.
    expect(await page.evaluate(async () => (await fetch('/api/admin/users')).status)).toBe(200);
    const audit = await e2e.database.knex('audit_log').whereNull('actor_id').whereRaw("after->>'reason' = 'OIDC_GROUPS_CLAIM'").pluck('action');
    expect(audit.sort()).toEqual(['group.add-member', 'team.add-member', 'team.add-member', 'user.admin', 'user.developer']);
    await context.close();

    const phone = await e2e.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
    const phonePage = await phone.newPage();
    await signIn(phonePage, e2e.url, GIJS);
    await phonePage.goto(`${e2e.url}/profile`);
    await expect.poll(() => profileCell(phonePage, 'Klas').innerText()).toBe('SD25');
    await phonePage.screenshot({ path: path.join(shots, 'identity-groups-profile-phone.png'), fullPage: true });
    await phone.close();
  });

  it('a new person with groups waits for activation, already in the cohort the groups give', async () => {
    const context = await e2e.browser.newContext();
    const page = await context.newPage();
    await signIn(page, e2e.url, GREET, { waitForApp: false });
    await page.waitForURL(`${e2e.url}/not_verified`);
    const row = await e2e.database
      .knex('users')
      .leftJoin('groups', 'groups.id', 'users.group_id')
      .where({ email: GREET })
      .first<{ cohort: string | null; developer: boolean; email_verified_at: Date | null }>('groups.cohort', 'users.developer', 'users.email_verified_at');
    expect(row).toMatchObject({ cohort: 'SD24', developer: true, email_verified_at: null });
    await context.close();
  });
});
