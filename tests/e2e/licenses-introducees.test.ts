import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { E2E_TEST_TIMEOUT_MS, shotsDir, startE2eApp, type E2eApp } from '../support/stacks/e2e-app.ts';

/*
 * Licences and introducees ('meelopers') in Chromium: an admin ticks a licence on and off, a
 * student requests one from the profile and sees it approved, an admin creates, reveals and
 * deletes a meeloper.
 */

const shots = shotsDir();
let e2e: E2eApp;

beforeAll(async () => {
  e2e = await startE2eApp();
});

afterAll(async () => {
  await e2e?.stop();
});

const approvedAt = async (id: number): Promise<Date | null> =>
  ((await e2e.database.knex('licenses').where('id', id).first('approved_at')) as { approved_at: Date | null }).approved_at;

describe('Licences in Chromium', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  it('lets an admin tick a licence approved and untick it again', async () => {
    const emma = (await e2e.database.knex('licenses').where('description', 'Adobe Creative Cloud voor het portfolio').first('id')) as { id: number };
    const { context, page } = await e2e.signInAs('admin@devplein.test');
    await page.getByRole('navigation', { name: 'Zijmenu' }).getByRole('link', { name: 'Licenties' }).click();
    await page.waitForURL(`${e2e.url}/admin/licenses`);
    await page.getByRole('heading', { level: 1, name: 'Licenties' }).waitFor();
    const table = page.getByTestId('admin-licenses');
    const headers = await table.locator('thead th').allInnerTexts();
    expect(headers.slice(0, 3)).toEqual(['Omschrijving', 'Licentie', 'Student/docent']);
    expect(await page.getByTestId('admin-license-row').count()).toBe(3);

    const row = page.getByTestId('admin-license-row').filter({ hasText: 'Adobe Creative Cloud voor het portfolio' });
    expect(await row.innerText()).toContain('Emma Smits');
    const tick = row.getByRole('checkbox');
    expect(await tick.isChecked()).toBe(false);
    await page.getByTestId('licenses-pending').getByText('1 aanvraag wacht op goedkeuring', { exact: false }).waitFor();

    await tick.click();
    await row.getByText('Ja', { exact: true }).waitFor();
    expect(await tick.isChecked()).toBe(true);
    expect(await approvedAt(emma.id)).not.toBeNull();
    await page.getByTestId('licenses-pending').getByText('Alle aanvragen zijn goedgekeurd.').waitFor();
    await page.screenshot({ path: path.join(shots, 'admin-licenses.png'), fullPage: true });

    // A second tick revokes; the state survives a reload.
    await tick.click();
    await row.getByText('Nee', { exact: true }).waitFor();
    expect(await approvedAt(emma.id)).toBeNull();
    await page.reload();
    await page.getByTestId('admin-license-row').first().waitFor();
    expect(await page.getByTestId('admin-license-row').filter({ hasText: 'Emma Smits' }).getByRole('checkbox').isChecked()).toBe(false);
    await context.close();
  });

  it('lets a student request a licence from the profile and see it approved', async () => {
    const { context, page } = await e2e.signInAs('student@devplein.test');
    await page.goto(`${e2e.url}/profile`);
    const section = page.getByTestId('licenses-section');
    await section.getByRole('heading', { name: 'Licenties' }).waitFor();
    await section.getByText('Je hebt nog geen licenties aangevraagd.').waitFor();
    const submit = section.getByRole('button', { name: 'Aanvragen' });
    expect(await submit.isDisabled()).toBe(true);

    await section.getByLabel('Licentie', { exact: true }).fill('JetBrains');
    await section.getByLabel('Omschrijving').fill('Abc');
    await section.getByText('Minimaal 5 tekens.').waitFor();
    expect(await submit.isDisabled()).toBe(true);
    await section.getByLabel('Omschrijving').fill('PhpStorm voor mijn examenproject');
    expect(await submit.isEnabled()).toBe(true);
    await submit.click();
    await section.getByText('Je aanvraag is verstuurd.').waitFor();
    const item = section.getByTestId('license-item');
    await item.getByText('In behandeling').waitFor();
    expect(await item.innerText()).toContain('JetBrains');
    expect(await item.innerText()).toContain('PhpStorm voor mijn examenproject');
    expect(await section.getByLabel('Licentie', { exact: true }).inputValue()).toBe('');
    await page.screenshot({ path: path.join(shots, 'profile-licenses-pending.png'), fullPage: true });

    // The teacher's tick on /admin/licenses approves it.
    const teacher = await e2e.signInAs('docent@devplein.test');
    await teacher.page.goto(`${e2e.url}/admin/licenses`);
    const row = teacher.page.getByTestId('admin-license-row').filter({ hasText: 'PhpStorm voor mijn examenproject' });
    expect(await row.innerText()).toContain('Sam Student');
    await row.getByRole('checkbox').click();
    await row.getByText('Ja', { exact: true }).waitFor();
    await teacher.context.close();

    await page.reload();
    await section.getByTestId('license-item').getByText('Goedgekeurd').waitFor();
    expect(await section.getByRole('button', { name: /intrekken/ }).count()).toBe(0);
    await context.close();
  });

  it('lets a student withdraw a pending request, and fits a phone', async () => {
    const { context, page } = await e2e.signInAs('zonderklas@devplein.test', { width: 390, height: 844 });
    await page.goto(`${e2e.url}/profile`);
    const section = page.getByTestId('licenses-section');
    await section.getByLabel('Licentie', { exact: true }).fill('Figma Education');
    await section.getByLabel('Omschrijving').fill('Voor het ontwerp van de schoolapp');
    await section.getByRole('button', { name: 'Aanvragen' }).click();
    await section.getByTestId('license-item').getByText('In behandeling').waitFor();
    await section.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(shots, 'profile-licenses-phone.png'), fullPage: true });
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);
    await section.getByRole('button', { name: 'Aanvraag Figma Education intrekken' }).click();
    await section.getByText('Je hebt nog geen licenties aangevraagd.').waitFor();
    await context.close();
  });
});

describe('Meelopers in Chromium', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  it('lets an admin create a meeloper, reveal the git password and delete it', async () => {
    const { context, page } = await e2e.signInAs('admin@devplein.test');
    await page.getByRole('navigation', { name: 'Zijmenu' }).getByRole('link', { name: 'Meelopers' }).click();
    await page.waitForURL(`${e2e.url}/admin/hangers`);
    await page.getByRole('heading', { level: 1, name: 'Meelopers' }).waitFor();
    await page.getByText('Er zijn nog geen meelopers.').waitFor();

    const name = page.getByLabel('Naam');
    const create = page.getByRole('button', { name: 'Create' });
    expect(await create.isDisabled()).toBe(true);
    // Not a valid git user: the fourth character starts it.
    await name.fill('mlp-jansen');
    await page.getByText('Het vierde teken mag geen streepje zijn', { exact: false }).waitFor();
    expect(await create.isDisabled()).toBe(true);
    // Capitals are lowered as typed; the git user name shows before creating.
    await name.fill('MlpJansen');
    expect(await name.inputValue()).toBe('mlpjansen');
    await page.getByText('Gitgebruikersnaam:').waitFor();
    expect(await page.locator('#introducee-form-message code').innerText()).toBe('jansen');
    await create.click();
    await page.getByText('Meeloper mlpjansen is aangemaakt.').waitFor();

    const row = page.getByTestId('admin-introducee-row').filter({ hasText: 'mlpjansen.dev.devplein.test' });
    const headers = await page.getByTestId('admin-introducees').locator('thead th').allInnerTexts();
    expect(headers.slice(0, 3)).toEqual(['Domein', 'Gitgebruikersnaam', 'Gitwachtwoord']);
    expect(await row.getByRole('link', { name: 'mlpjansen.dev.devplein.test' }).getAttribute('href')).toBe('http://mlpjansen.dev.devplein.test');
    expect(await row.locator('td').nth(1).innerText()).toBe('jansen');
    const password = row.getByTestId('introducee-password');
    expect(await password.innerText()).toBe('XXXXXXX');
    await page.screenshot({ path: path.join(shots, 'admin-introducees.png'), fullPage: true });

    await row.getByRole('button', { name: 'Wachtwoord van mlpjansen tonen' }).click();
    const shown = await password.innerText();
    expect(shown).toMatch(/^[A-Za-z0-9_-]{20}$/);
    const stored = (await e2e.database.knex('introducees').where('name', 'mlpjansen').first('password_encrypted')) as { password_encrypted: string };
    expect(stored.password_encrypted).not.toContain(shown);
    await page.screenshot({ path: path.join(shots, 'admin-introducees-password.png'), fullPage: true });
    await row.getByRole('button', { name: 'Wachtwoord van mlpjansen verbergen' }).click();
    expect(await password.innerText()).toBe('XXXXXXX');

    // The same name again: the server's 'bestaat al'.
    await name.fill('mlpjansen');
    await create.click();
    await page.getByRole('alert').getByText('bestaat al', { exact: false }).waitFor();

    await row.getByRole('button', { name: 'mlpjansen verwijderen' }).click();
    await row.getByText('Wil je "mlpjansen" verwijderen?').waitFor();
    await row.getByRole('button', { name: 'Ja!' }).click();
    await page.getByText('Er zijn nog geen meelopers.').waitFor();
    expect(await e2e.database.knex('introducees').where('name', 'mlpjansen').first()).toBeUndefined();
    await context.close();
  });

  it('fits a phone: the form stacks, the tables scroll sideways inside their cards', async () => {
    const { context, page } = await e2e.signInAs('admin@devplein.test', { width: 390, height: 844 });
    await page.goto(`${e2e.url}/admin/hangers`);
    await page.getByLabel('Naam').fill('mlptelefoon');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByTestId('admin-introducee-row').first().waitFor();
    await page.screenshot({ path: path.join(shots, 'admin-introducees-phone.png'), fullPage: true });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.goto(`${e2e.url}/admin/licenses`);
    await page.getByTestId('admin-license-row').first().waitFor();
    await page.screenshot({ path: path.join(shots, 'admin-licenses-phone.png'), fullPage: true });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await context.close();
  });

  it('refuses the page to a student (the server refuses the calls anyway)', async () => {
    const { context, page } = await e2e.signInAs('student@devplein.test');
    await page.goto(`${e2e.url}/admin/hangers`);
    await page.waitForLoadState('networkidle');
    expect(await page.getByTestId('admin-introducees').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Create' }).count()).toBe(0);
    await context.close();
  });
});
