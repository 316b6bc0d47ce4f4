import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { E2E_TEST_TIMEOUT_MS, shotsDir, startE2eApp, type E2eApp } from '../support/stacks/e2e-app.ts';

const shots = shotsDir();
const SITE = 'dev.devplein.test';
let e2e: E2eApp;

beforeAll(async () => {
  e2e = await startE2eApp({ env: { SITE_DOMAIN: SITE } });
});

afterAll(async () => {
  await e2e?.stop();
});

const DESCRIPTION = 'Een site voor de open dag met het programma en een inschrijfformulier.';

describe('project requests in Chromium', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  it('a student requests a project through the form', async () => {
    const { context, page } = await e2e.signInAs('student@devplein.test', { width: 420, height: 900 });
    await page.goto(`${e2e.url}/dockers/create`);
    const form = page.getByTestId('docker-request-form');
    await form.getByRole('heading', { name: 'Docker aanvragen' }).waitFor();
    const submit = form.getByRole('button', { name: 'Aanvragen' });
    expect(await submit.isDisabled()).toBe(true);
    // The current user is always shown as a member, and cannot be removed.
    await form.getByRole('list', { name: 'Teamleden' }).getByText('Sam Student').waitFor();

    // Only a-z and hyphens can be typed; the domain follows the name.
    await form.getByLabel('Naam').pressSequentially('Open Dag_2!');
    expect(await form.getByLabel('Naam').inputValue()).toBe('opendag');
    await form.getByLabel('Naam').fill('');
    await form.getByLabel('Naam').pressSequentially('open-dag');
    expect(await form.getByLabel('Domein').inputValue()).toBe(`open-dag.${SITE}`);

    await form.getByLabel('Image').selectOption({ label: 'PHP 8.3 + Apache' });
    const counter = form.getByTestId('description-counter');
    await form.getByLabel('Beschrijving').fill('x'.repeat(38));
    expect(await counter.textContent()).toBe('Aantal tekens: 38 (min. 40)');
    expect(await counter.getAttribute('class')).not.toContain('enough');
    await form.getByLabel('Beschrijving').fill('x'.repeat(39));
    expect(await counter.textContent()).toBe('Aantal tekens: 39 (min. 40)');
    expect(await counter.getAttribute('class')).toContain('enough');
    expect(await submit.isDisabled()).toBe(true);
    await form.getByLabel('Beschrijving').fill(DESCRIPTION);
    expect(await submit.isDisabled()).toBe(false);

    // A member through the user search; picking them twice adds them once.
    const search = form.getByLabel('Teamlid zoeken');
    await search.fill('Mees');
    await form.getByTestId('user-search-hit').filter({ hasText: 'Mees Schouten' }).click();
    await search.fill('Mees');
    await expect.poll(() => form.getByTestId('user-search-hit').filter({ hasText: 'Mees Schouten' }).isDisabled()).toBe(true);
    await search.fill('');
    expect(await form.getByRole('list', { name: 'Teamleden' }).getByRole('listitem').allTextContents()).toEqual(['Sam Student (jij)', 'Mees Schouten×']);
    await page.screenshot({ path: path.join(shots, 'docker-request-form.png'), fullPage: true });

    await submit.click();
    await page.waitForURL(`${e2e.url}/dockers`);
    const row = await e2e.database.knex('projects').where({ name: 'open-dag' }).first('id', 'validated', 'domain');
    expect(row).toEqual({ id: expect.any(Number), validated: null, domain: `open-dag.${SITE}` });

    // Editing: /dockers/create?id= shows 'Docker bewerken' with the stored values.
    await page.goto(`${e2e.url}/dockers/create?id=${row.id}`);
    await form.getByRole('heading', { name: 'Docker bewerken' }).waitFor();
    expect(await form.getByLabel('Naam').inputValue()).toBe('open-dag');
    expect(await form.getByLabel('Image').inputValue()).toBe('2');
    await form.getByLabel('Git-repository (optioneel)').fill('git@git.devplein.test:sam/open-dag.git');
    await form.getByRole('button', { name: 'Opslaan' }).click();
    await page.waitForURL(`${e2e.url}/dockers`);
    expect((await e2e.database.knex('projects').where({ id: row.id }).first('repro')).repro).toBe('git@git.devplein.test:sam/open-dag.git');

    // Someone else's request cannot be opened for editing.
    const olga = await e2e.database.knex('projects').where({ name: 'olga-api' }).first('id');
    await page.goto(`${e2e.url}/dockers/create?id=${olga.id}`);
    await page.getByText('Deze aanvraag bestaat niet of is niet van jou.').waitFor();
    await context.close();
  });

  it('shows the field errors of a refused request in an alert, one per line', async () => {
    const { context, page } = await e2e.signInAs('ontwikkelaar@devplein.test');
    await page.goto(`${e2e.url}/dockers/create`);
    const form = page.getByTestId('docker-request-form');
    // The form is ready (user and image list loaded) before anything is typed into it.
    await form.getByRole('heading', { name: 'Docker aanvragen' }).waitFor();
    await form.getByRole('list', { name: 'Teamleden' }).getByText('Olga Ontwikkelaar').waitFor();
    await form.getByLabel('Image').locator('option', { hasText: 'Node.js 20' }).waitFor({ state: 'attached' });
    const submit = form.getByRole('button', { name: 'Aanvragen' });
    expect(await submit.isDisabled()).toBe(true);
    // A name that is taken: the form cannot know, the server says so.
    await form.getByLabel('Naam').pressSequentially('sam-portfolio');
    await form.getByLabel('Image').selectOption({ label: 'Node.js 20' });
    await form.getByLabel('Beschrijving').fill(DESCRIPTION);
    // Everything as typed, so the form finds nothing wrong and enables the button (slow under load).
    const settled = { timeout: 15_000 };
    await expect.poll(() => form.getByLabel('Naam').inputValue(), settled).toBe('sam-portfolio');
    await expect.poll(() => form.getByLabel('Domein').inputValue(), settled).toBe(`sam-portfolio.${SITE}`);
    await expect.poll(() => submit.isEnabled(), settled).toBe(true);
    // The alert is answered inside the handler: an open alert blocks the page, and a click that
    // waits for the page to settle would then never return (seen under load).
    const alerts: string[] = [];
    page.once('dialog', (dialog) => {
      alerts.push(dialog.message());
      void dialog.dismiss();
    });
    await submit.click();
    await expect.poll(() => alerts, settled).toEqual([
      'Deze naam is al in gebruik. Kies een andere naam.\nDit domein is al in gebruik. Kies een ander domein.',
    ]);
    expect(page.url()).toBe(`${e2e.url}/dockers/create`);
    await context.close();
  });

  it('an admin approves and rejects a request on /admin/dockers/open; docker_id 1 is always in edit mode', async () => {
    const { context, page } = await e2e.signInAs('docent@devplein.test');
    await page.goto(`${e2e.url}/admin/dockers/open`);
    await page.getByRole('heading', { name: 'Projecten ter goedkeuring' }).waitFor();
    const card = page.locator('[data-testid="project-request"][data-project="open-dag"]');
    await card.waitFor();
    await card.getByText('Sam Student (SD23)').waitFor();
    await card.getByRole('link', { name: `open-dag.${SITE}` }).waitFor();
    expect(await card.getByTestId('project-git').textContent()).toBe('git@git.devplein.test:sam/open-dag.git');

    // The special image: form open, no approve button.
    const special = page.locator('[data-testid="project-request"][data-project="eigen-server"]');
    await special.getByTestId('docker-request-form').getByRole('heading', { name: 'Docker bewerken' }).waitFor();
    expect(await special.getByRole('button', { name: 'Keur goed' }).count()).toBe(0);
    expect(await special.getByRole('button', { name: 'Bewerk' }).count()).toBe(0);
    await special.getByText('Luuk Hendriks (SD21)').waitFor();
    await page.screenshot({ path: path.join(shots, 'admin-dockers-open.png'), fullPage: true });
    await page.setViewportSize({ width: 400, height: 860 });
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(shots, 'admin-dockers-open-phone.png') });
    await page.setViewportSize({ width: 1280, height: 900 });

    await card.getByRole('button', { name: 'Keur goed' }).click();
    await card.getByRole('button', { name: 'Keur af' }).waitFor();
    await card.getByText('Goedgekeurd').waitFor();
    expect((await e2e.database.knex('projects').where({ name: 'open-dag' }).first('validated')).validated).toBe(true);
    await card.getByRole('button', { name: 'Keur af' }).click();
    await card.getByText('Afgekeurd').waitFor();
    expect((await e2e.database.knex('projects').where({ name: 'open-dag' }).first('validated')).validated).toBe(false);
    await card.getByRole('button', { name: 'Keur goed' }).click();
    await card.getByText('Goedgekeurd').waitFor();

    // The teacher picks an image for the special request; then it can be approved.
    const specialForm = special.getByTestId('docker-request-form');
    await specialForm.getByLabel('Image').selectOption({ label: 'Statische site' });
    await specialForm.getByRole('button', { name: 'Opslaan' }).click();
    await special.getByRole('button', { name: 'Keur goed' }).waitFor();
    expect(await special.getByTestId('docker-request-form').count()).toBe(0);
    // The teacher was not added as a member by editing.
    expect(await special.getByText('Dirk Docent').count()).toBe(0);

    // Inline edit of an ordinary request.
    const kantine = page.locator('[data-testid="project-request"][data-project="kantine-app"]');
    await kantine.getByRole('button', { name: 'Bewerk' }).click();
    await kantine.getByTestId('docker-request-form').getByLabel('Git-repository (optioneel)').fill('https://git.devplein.test/sam/kantine-app.git');
    await kantine.getByTestId('docker-request-form').getByRole('button', { name: 'Opslaan' }).click();
    await kantine.getByTestId('project-git').getByText('https://git.devplein.test/sam/kantine-app.git').waitFor();
    await page.screenshot({ path: path.join(shots, 'admin-dockers-open-decided.png'), fullPage: true });

    // Delete asks first.
    page.once('dialog', (dialog) => void dialog.accept());
    await kantine.getByRole('button', { name: 'Verwijder' }).click();
    await kantine.waitFor({ state: 'detached' });
    expect(await e2e.database.knex('projects').where({ name: 'kantine-app' }).first('id')).toBeUndefined();
    await context.close();
  });

  it("says 'Er zijn op dit moment geen aanvragen' when nothing awaits approval", async () => {
    await e2e.database.knex('projects').whereNull('validated').update({ validated: false });
    const { context, page } = await e2e.signInAs('admin@devplein.test');
    await page.goto(`${e2e.url}/admin/dockers/open`);
    await page.getByText('Er zijn op dit moment geen aanvragen', { exact: true }).waitFor();
    await context.close();
  });

  it('/admin/projects searches name, image, domain, members and cohorts; geen = no members', async () => {
    const { context, page } = await e2e.signInAs('docent@devplein.test');
    await page.goto(`${e2e.url}/admin/projects`);
    const table = page.getByTestId('all-projects');
    await table.waitFor();
    const names = () => table.locator('tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-project')));
    expect(await names()).toContain('open-dag');
    const search = page.getByLabel('Zoek projecten');
    await search.fill('geen');
    await expect.poll(names).toEqual(['oude-intranet']);
    await search.fill('sd21');
    await expect.poll(names).toEqual(['quiz-master', 'voetbal-uitslagen']);
    await search.fill('Flask');
    await expect.poll(names).toEqual(['voetbal-uitslagen']);
    await search.fill('Lars');
    await expect.poll(names).toEqual(['webshop-groen']);
    await page.screenshot({ path: path.join(shots, 'admin-projects.png'), fullPage: true });
    await search.fill('bestaat-echt-niet');
    await page.getByText('Er zijn op dit moment geen aanvragen met deze criteria', { exact: true }).waitFor();
    await context.close();

    // The route is open to any signed-in user; the page (and the API) are for admins.
    const student = await e2e.signInAs('student@devplein.test');
    await student.page.goto(`${e2e.url}/admin/projects`);
    await student.page.getByRole('heading', { name: 'Geen toegang' }).waitFor();
    await student.context.close();
  });
});
