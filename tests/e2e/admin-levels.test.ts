import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { E2E_TEST_TIMEOUT_MS, shotsDir, startE2eApp, type E2eApp } from '../support/stacks/e2e-app.ts';

/*
 * The teachers' level tools in Chromium: categories and content round trips, and the levels per
 * student table of spec §2 with its cell changes, bulk forms and their alerts.
 */

const shots = shotsDir();
let e2e: E2eApp;

beforeAll(async () => {
  e2e = await startE2eApp({ viewport: { width: 1440, height: 900 } });
});

afterAll(async () => {
  await e2e?.stop();
});

/** Collects window.alert texts (and accepts them) so a test can assert the exact strings. */
function collectDialogs(page: Page): string[] {
  const messages: string[] = [];
  page.on('dialog', (dialog) => {
    messages.push(dialog.message());
    void dialog.accept();
  });
  return messages;
}

async function waitForCondition(check: () => Promise<boolean>, description: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${description}`);
}

describe('level categories and content (admin)', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  it('lists categories with Titel, Aantal, Icoontjes?, Opties; creates one and edits it', async () => {
    const { context, page } = await e2e.signInAs('docent@devplein.test');
    await page.goto(`${e2e.url}/admin/levels/categories`);
    const table = page.getByTestId('level-categories');
    await table.waitFor();
    expect(await table.locator('thead th').allInnerTexts()).toEqual(['Titel', 'Aantal', 'Icoontjes?', 'Opties']);
    const frontEnd = table.locator('tbody tr', { hasText: 'Front-end' });
    expect(await frontEnd.locator('td').allInnerTexts()).toEqual(['Front-end', '10', 'Ja', 'Bewerken']);
    await page.screenshot({ path: path.join(shots, 'admin-level-categories.png'), fullPage: true });

    await page.getByRole('link', { name: 'Toevoegen' }).click();
    await page.waitForURL(`${e2e.url}/admin/levels/categories/create`);
    await page.getByLabel('Titel').fill('Security');
    await page.getByLabel('Hoeveel?').fill('6');
    await page.getByLabel('Icoontjes?').check();
    expect(await page.getByRole('link', { name: 'Terug' }).getAttribute('href')).toBe('/admin/levels/categories');
    await page.getByRole('button', { name: 'Opslaan' }).click();
    await page.waitForURL(`${e2e.url}/admin/levels/categories`);
    const security = table.locator('tbody tr', { hasText: 'Security' });
    await security.waitFor();
    expect(await security.locator('td').allInnerTexts()).toEqual(['Security', '6', 'Ja', 'Bewerken']);

    await security.getByRole('link', { name: 'Security bewerken' }).click();
    await page.waitForURL(/\/admin\/levels\/categories\/\d+$/);
    expect(await page.getByLabel('Titel').inputValue()).toBe('Security');
    expect(await page.getByLabel('Hoeveel?').inputValue()).toBe('6');
    await page.getByLabel('Titel').fill('Security en privacy');
    await page.getByLabel('Hoeveel?').fill('7');
    await page.getByLabel('Icoontjes?').uncheck();
    await page.getByRole('button', { name: 'Opslaan' }).click();
    await page.waitForURL(`${e2e.url}/admin/levels/categories`);
    const edited = table.locator('tbody tr', { hasText: 'Security en privacy' });
    await edited.waitFor();
    expect(await edited.locator('td').allInnerTexts()).toEqual(['Security en privacy', '7', 'Nee', 'Bewerken']);

    // Bad input comes back as field messages, and the page stays.
    await page.getByRole('link', { name: 'Toevoegen' }).click();
    await page.getByLabel('Hoeveel?').fill('99');
    await page.getByRole('button', { name: 'Opslaan' }).click();
    await page.getByText('Vul een titel in.').waitFor();
    await page.getByText('Het aantal mag hoogstens 50 zijn.').waitFor();
    expect(page.url()).toBe(`${e2e.url}/admin/levels/categories/create`);
    await context.close();
  });

  it('creates level content and edits its courses, texts (with a safe Markdown preview) and order', async () => {
    const { context, page } = await e2e.signInAs('admin@devplein.test');
    await page.goto(`${e2e.url}/admin/levels/content`);
    const table = page.getByTestId('level-contents');
    await table.waitFor();
    expect(await table.locator('thead th').allInnerTexts()).toEqual(['Naam voor studenten', 'Naam voor docenten', 'Categorie', 'Opties']);

    await page.getByRole('link', { name: 'Toevoegen' }).click();
    await page.waitForURL(`${e2e.url}/admin/levels/content/create`);
    await page.getByLabel('Titel voor studenten').fill('Grid layout');
    await page.getByLabel('Titel voor docenten').fill('FE7 CSS Grid');
    await page.getByLabel('Categorie').selectOption({ label: 'Front-end' });
    await page.getByRole('button', { name: 'Opslaan' }).click();
    await page.waitForURL(`${e2e.url}/admin/levels/content`);
    const row = table.locator('tbody tr', { hasText: 'Grid layout' });
    await row.waitFor();
    expect(await row.locator('td').allInnerTexts()).toEqual(['Grid layout', 'FE7 CSS Grid', 'Front-end', 'Bewerken']);

    await row.getByRole('link', { name: 'Grid layout bewerken' }).click();
    await page.waitForURL(/\/admin\/levels\/content\/\d+$/);
    await page.getByText('Dit level heeft nog geen cursussen.').waitFor();
    for (const title of ['Eerste cursus', 'Tweede cursus']) {
      await page.getByLabel('Nieuwe cursus').fill(title);
      await page.getByRole('button', { name: 'Cursus toevoegen' }).click();
      await page.getByRole('article', { name: `Cursus ${title}` }).waitFor();
    }
    await page.getByRole('button', { name: 'Cursus Tweede cursus omhoog' }).click();
    await waitForCondition(
      async () => (await page.getByTestId('course').first().getAttribute('aria-label')) === 'Cursus Tweede cursus',
      'the second course to move up',
    );

    const course = page.getByRole('article', { name: 'Cursus Tweede cursus' });
    await course.getByRole('button', { name: 'Tekst toevoegen' }).click();
    await course.getByLabel('Titel van de tekst').fill('Uitleg');
    await course.getByLabel('Tekst (Markdown)').fill('# Grid\n\nGebruik **grid-template-columns**.\n\n<script>window.hacked = true</script>\n\n[klik](javascript:alert(1))');
    const preview = course.getByTestId('markdown-preview');
    await preview.locator('strong', { hasText: 'grid-template-columns' }).waitFor();
    expect(await preview.locator('h1').innerText()).toBe('Grid');
    // Raw HTML is not rendered and a javascript: link loses its target.
    expect(await preview.locator('script').count()).toBe(0);
    expect(await preview.getByRole('link', { name: 'klik' }).getAttribute('href')).not.toContain('javascript');
    await course.getByRole('button', { name: 'Tekst toevoegen' }).click();
    await course.getByTestId('course-text').filter({ hasText: 'Uitleg' }).waitFor();
    expect(await page.evaluate(() => (window as { hacked?: boolean }).hacked)).toBeUndefined();

    // A file of a type that is not allowed is refused before it is sent.
    await course.getByLabel('Bestand', { exact: true }).setInputFiles({ name: 'virus.exe', mimeType: 'application/octet-stream', buffer: Buffer.from('MZ') });
    await course.getByText(/^Dit soort bestand kan niet\./).waitFor();
    expect(await course.getByRole('button', { name: 'Uploaden' }).isDisabled()).toBe(true);
    await course.getByLabel('Bestand', { exact: true }).setInputFiles({ name: 'opdracht.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4 test') });
    await course.getByRole('button', { name: 'Uploaden' }).click();
    const file = course.getByTestId('course-file');
    await file.waitFor();
    expect(await file.innerText()).toContain('PDF · opdracht.pdf');
    // The title followed the chosen file (not the refused one chosen first).
    expect(await file.getByRole('link').innerText()).toBe('opdracht');
    await page.screenshot({ path: path.join(shots, 'admin-level-content-edit.png'), fullPage: true });
    await context.close();
  });

  it('downloads the chosen group as a spreadsheet (the button appears once a group is chosen)', async () => {
    const { context, page } = await e2e.signInAs('admin@devplein.test');
    await page.goto(`${e2e.url}/admin/levels`);
    const button = page.getByRole('link', { name: 'Levels van deze groep downloaden (CSV)' });
    await page.getByLabel('Groep').locator('option', { hasText: 'SD21' }).waitFor({ state: 'attached' });
    expect(await button.count()).toBe(0);
    await page.getByLabel('Groep').selectOption({ label: 'SD21' });
    const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
    expect(download.suggestedFilename()).toMatch(/^levels-SD21-\d{4}-\d{2}-\d{2}\.csv$/);
    const text = readFileSync(await download.path(), 'utf8');
    expect(text.startsWith('\uFEFFNaam;E-mailadres;')).toBe(true);
    await page.getByTestId('category-levels').first().waitFor();
    await page.screenshot({ path: path.join(shots, 'admin-levels-download.png') });
    await context.close();
  });

  it('shows a student "Geen toegang" on the admin level pages', async () => {
    const { context, page } = await e2e.signInAs('ontwikkelaar@devplein.test');
    for (const route of ['/admin/levels', '/admin/levels/categories', '/admin/levels/content/create']) {
      await page.goto(`${e2e.url}${route}`);
      await page.getByTestId('no-access').waitFor();
    }
    await context.close();
  });
});

describe('levels per student (/admin/levels)', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  it('shows SD22 per category, changes a status and content, and runs both bulk forms with their alerts', async () => {
    const { context, page } = await e2e.signInAs('admin@devplein.test');
    const dialogs = collectDialogs(page);
    await page.goto(`${e2e.url}/admin/levels`);
    const groupSelect = page.getByLabel('Groep');
    await groupSelect.locator('option', { hasText: 'SD22' }).waitFor({ state: 'attached' });
    expect(await groupSelect.locator('option').allInnerTexts()).toEqual(['-', 'SD20', 'SD21', 'SD22', 'SD23']);
    await groupSelect.selectOption({ label: 'SD22' });

    const categories = await e2e.database.knex('level_categories').orderBy('id').select('id', 'title', 'number');
    const sections = page.getByTestId('category-levels');
    await sections.first().waitFor();
    expect(await sections.count()).toBe(categories.length);
    const frontEnd = sections.filter({ has: page.getByRole('heading', { name: 'Front-end' }) });
    const headers = await frontEnd.locator('thead th').allInnerTexts();
    expect(headers.slice(1)).toEqual(['Student', ...Array.from({ length: 10 }, (_, index) => String(index + 1))]);
    expect(await frontEnd.getByTestId('student-row').count()).toBe(
      Number((await e2e.database.knex('users').join('groups', 'groups.id', 'users.group_id').where('groups.cohort', 'SD22').whereNull('disabled_at').count<Array<{ count: string }>>('* as count'))[0]!.count),
    );

    // Olga's first Front-end level: the status select and (after 300 ms) the content options.
    const olga = frontEnd.locator('tr[data-student="Olga Ontwikkelaar"]');
    const firstCell = olga.locator('td[data-number="1"]');
    const statusSelect = olga.getByLabel('Status level 1 van Olga Ontwikkelaar');
    expect(await statusSelect.locator('option').allInnerTexts()).toEqual(['Locked', 'Open', 'Success']);
    const contentSelect = olga.getByLabel('Levelinhoud level 1 van Olga Ontwikkelaar');
    await contentSelect.locator('option').nth(1).waitFor({ state: 'attached' });
    expect(await contentSelect.locator('option').first().innerText()).toBe('-- levelinhoud');
    expect(await contentSelect.locator('option').allInnerTexts()).toContain('FE1 HTML-structuur en semantiek');

    // Cell colours: locked grey, open white, success green.
    const colour = async (status: string) => {
      await statusSelect.selectOption(status);
      await waitForCondition(async () => (await firstCell.getAttribute('data-status')) === status, `cell status ${status}`);
      return firstCell.evaluate((cell) => getComputedStyle(cell).backgroundColor);
    };
    const success = await colour('success');
    const open = await colour('open');
    const locked = await colour('locked');
    expect(open).toBe('rgb(255, 255, 255)');
    expect(success).toMatch(/^rgb\(\d+, \d+, \d+\)$/);
    const [r, g, b] = success.match(/\d+/g)!.map(Number);
    expect(g).toBeGreaterThan(r!);
    expect(g).toBeGreaterThan(b!);
    const [lr, lg, lb] = locked.match(/\d+/g)!.map(Number);
    expect(Math.max(lr!, lg!, lb!) - Math.min(lr!, lg!, lb!)).toBeLessThan(16); // grey
    await statusSelect.selectOption('success');
    const olgaId = await e2e.userIdOf('ontwikkelaar@devplein.test');
    const frontEndId = categories.find((category) => category.title === 'Front-end')!.id;
    await waitForCondition(
      async () => (await e2e.database.knex('levels').where({ user_id: olgaId, level_category_id: frontEndId, number: 1 }).first('status')).status === 'success',
      'the status to be stored',
    );

    // An empty cell shows only the content select; picking content creates the record (locked).
    const emptyCell = olga.locator('td[data-number="10"]');
    expect(await emptyCell.locator('select').count()).toBe(1);
    await emptyCell.locator('select').selectOption({ label: 'FE1 HTML-structuur en semantiek' });
    await emptyCell.locator('select').nth(1).waitFor();
    expect(await emptyCell.getAttribute('data-status')).toBe('locked');
    expect(await e2e.database.knex('levels').where({ user_id: olgaId, level_category_id: frontEndId, number: 10 }).first('status')).toEqual({ status: 'locked' });

    await page.screenshot({ path: path.join(shots, 'admin-levels-table.png'), fullPage: false });

    // Bulk forms: the two alerts of spec §5/§8, exactly.
    const contentForm = frontEnd.getByRole('form', { name: 'Levelinhoud wijzigen (Front-end)' });
    const statusForm = frontEnd.getByRole('form', { name: 'Status wijzigen (Front-end)' });
    await contentForm.getByRole('button', { name: 'Inhoud wijzigen' }).click();
    await waitForCondition(async () => dialogs.length === 1, 'the first alert');
    expect(dialogs[0]).toBe('Niet alle velden zijn ingevuld');
    await statusForm.getByLabel('Status', { exact: true }).selectOption('success');
    await statusForm.getByRole('button', { name: 'Status wijzigen' }).click();
    await waitForCondition(async () => dialogs.length === 2, 'the second alert');
    expect(dialogs[1]).toBe('Niet alle velden zijn ingevuld');
    await statusForm.getByLabel('Level', { exact: true }).selectOption('7');
    await statusForm.getByRole('button', { name: 'Status wijzigen' }).click();
    await waitForCondition(async () => dialogs.length === 3, 'the third alert');
    expect(dialogs[2]).toBe('Je hebt geen studenten geselecteerd');

    // Tick two students, set their level 7 to success: exactly those two change.
    const ticked = ['Olga Ontwikkelaar', 'Finn Dijkstra'];
    for (const name of ticked) await frontEnd.getByLabel(`${name} selecteren`).check();
    await statusForm.getByRole('button', { name: 'Status wijzigen' }).click();
    for (const name of ticked) {
      await frontEnd.locator(`tr[data-student="${name}"] td[data-number="7"][data-status="success"]`).waitFor();
    }
    const level7 = await e2e.database.knex('levels').join('users', 'users.id', 'levels.user_id')
      .join('groups', 'groups.id', 'users.group_id')
      .where({ level_category_id: frontEndId, number: 7, status: 'success', 'groups.cohort': 'SD22' })
      .pluck('users.name');
    expect(level7.sort()).toEqual([...ticked].sort());

    // Select-all, then the content variant sets content and status of level 2 for everyone.
    await frontEnd.getByLabel('Alle studenten selecteren (Front-end)').check();
    await contentForm.getByLabel('Levelinhoud').selectOption({ label: 'FE1 HTML-structuur en semantiek' });
    await contentForm.getByLabel('Status', { exact: true }).selectOption('open');
    await contentForm.getByLabel('Level', { exact: true }).selectOption('2');
    await contentForm.getByRole('button', { name: 'Inhoud wijzigen' }).click();
    const rows = await frontEnd.getByTestId('student-row').count();
    await waitForCondition(
      async () => (await frontEnd.locator('td[data-number="2"][data-status="open"]').count()) === rows,
      'level 2 open for every student',
    );
    expect(dialogs).toHaveLength(3);
    await context.close();
  });

  it('shows users named import by e-mail, and stays usable on a phone', async () => {
    const { context, page } = await e2e.signInAs('docent@devplein.test', { width: 390, height: 844 });
    await page.goto(`${e2e.url}/admin/levels`);
    await page.getByLabel('Groep').locator('option', { hasText: 'SD23' }).waitFor({ state: 'attached' });
    await page.getByLabel('Groep').selectOption({ label: 'SD23' });
    const first = page.getByTestId('category-levels').first();
    await first.locator('tr[data-student="r.dekker@student.devplein.test"]').waitFor();
    expect(await first.locator('tr[data-student="import"]').count()).toBe(0);
    // Only the table scrolls sideways, not the page.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(1);
    await page.screenshot({ path: path.join(shots, 'admin-levels-phone.png') });
    await context.close();
  });

  it('loads a cohort of 40 students over every category in one request and stays responsive', async () => {
    const knex = e2e.database.knex;
    const [group] = await knex('groups').insert({ cohort: 'SD99' }).returning('id');
    const users = await knex('users')
      .insert(
        Array.from({ length: 40 }, (_, index) => ({
          name: `Proef Student ${String(index + 1).padStart(2, '0')}`,
          name_slug: `proef-student-${index + 1}`,
          email: `proef${index + 1}@student.devplein.test`,
          email_verified_at: new Date(),
          group_id: group.id,
        })),
      )
      .returning('id');
    const categories = await knex('level_categories').orderBy('id').select('id', 'number');
    const contentOf = new Map<number, number>();
    for (const category of categories) {
      const content = await knex('level_contents').where({ level_category_id: category.id }).first('id');
      if (content) contentOf.set(category.id, content.id);
    }
    const statuses = ['locked', 'open', 'success'] as const;
    const rows = users.flatMap((user: { id: number }, userIndex: number) =>
      categories.flatMap((category: { id: number; number: number }) =>
        Array.from({ length: Math.min(category.number, 10) }, (_, index) => ({
          user_id: user.id,
          level_category_id: category.id,
          number: index + 1,
          status: statuses[(userIndex + index) % 3],
          level_content_id: contentOf.get(category.id) ?? null,
        })),
      ),
    );
    await knex.batchInsert('levels', rows, 500);
    const totalColumns = categories.reduce((sum: number, category: { number: number }) => sum + category.number, 0);

    const { context, page } = await e2e.signInAs('admin@devplein.test');
    await page.goto(`${e2e.url}/admin/levels`);
    await page.getByLabel('Groep').locator('option', { hasText: 'SD99' }).waitFor({ state: 'attached' });
    const apiCalls: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith('/api/')) apiCalls.push(`${request.method()} ${url.pathname}`);
    });
    // Every cell of every category is in the DOM. How fast: bench/admin-screens.bench.ts.
    await page.getByLabel('Groep').selectOption({ label: 'SD99' });
    const cells = 40 * totalColumns;
    await waitForCondition(async () => (await page.getByTestId('level-cell').count()) === cells, `${cells} level cells`);
    // The content options follow 300 ms later: one request per category, none per cell.
    await waitForCondition(async () => apiCalls.filter((call) => call.includes('index-by-category')).length === categories.length, 'content options');
    expect(apiCalls.filter((call) => call.startsWith('GET /api/users/by-group/'))).toHaveLength(1);
    expect(apiCalls).toHaveLength(1 + categories.length);

    // A status change shows at once (optimistic), however big the table.
    const cell = page.locator('tr[data-student="Proef Student 01"]').first().locator('td[data-number="1"]');
    const before = await cell.getAttribute('data-status');
    const next = before === 'success' ? 'open' : 'success';
    await cell.getByLabel('Status level 1 van Proef Student 01').selectOption(next);
    await waitForCondition(async () => (await cell.getAttribute('data-status')) === next, `cell status ${next}`);
    await page.screenshot({ path: path.join(shots, 'admin-levels-40-students.png') });
    await context.close();
  });
});
