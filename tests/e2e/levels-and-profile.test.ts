import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCourseFileStore } from '../../control-plane/src/storage/course-file-store.ts';
import { E2E_TEST_TIMEOUT_MS, shotsDir, startE2eApp, type E2eApp } from '../support/stacks/e2e-app.ts';

/*
 * The Levels, level detail, profile, useful links and exams screens in Chromium, signed in
 * through the real OIDC flow. Needs a built web app (npm run build -w @devplein/web).
 */

const shots = shotsDir();
let e2e: E2eApp;

interface LevelRow {
  id: number;
  level_category_id: number;
  level_content_id: number | null;
  number: number;
  status: 'locked' | 'open' | 'success';
}

beforeAll(async () => {
  // A DATA_DIR of its own (the helper's default): a test puts a course file straight into it.
  e2e = await startE2eApp({ contextOptions: { acceptDownloads: true } });
});

afterAll(async () => {
  await e2e?.stop();
});

async function levelOf(email: string, status: LevelRow['status']): Promise<LevelRow> {
  const level = await e2e.database
    .knex('levels')
    .where({ user_id: await e2e.userIdOf(email), status })
    .whereNotNull('level_content_id')
    .orderBy(['level_category_id', 'number'])
    .first<LevelRow | undefined>();
  if (!level) throw new Error(`no ${status} level for ${email}`);
  return level;
}

async function courseTitles(contentId: number): Promise<string[]> {
  const rows: Array<{ title: string }> = await e2e.database.knex('courses').where({ level_content_id: contentId }).orderBy(['position', 'id']);
  return rows.map((row) => row.title);
}

describe('Levels and level detail', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  it('shows a student tiles per category: locked with a lock, finished with a check, placeholders "-"', async () => {
    const { context, page } = await e2e.signInAs('student@devplein.test');
    await page.getByRole('navigation', { name: 'Zijmenu' }).getByRole('link', { name: 'Levels' }).click();
    await page.waitForURL(`${e2e.url}/levels`);
    await page.getByRole('heading', { level: 1, name: 'Levels' }).waitFor();
    const categories = page.getByTestId('level-category');
    await categories.first().waitFor();
    expect(await categories.count()).toBe(await e2e.database.knex('level_categories').count({ n: '*' }).then((rows) => Number(rows[0]!.n)));

    const frontEnd = categories.first();
    expect(await frontEnd.getByRole('heading', { level: 2 }).innerText()).toBe('Front-end');
    const tiles = frontEnd.getByTestId('level-tile');
    expect(await tiles.count()).toBe(10);
    const numbers = await frontEnd.locator('.level-tile-number').allInnerTexts();
    expect(numbers).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);

    const success = page.locator('[data-testid="level-tile"][data-status="success"]').first();
    const locked = page.locator('[data-testid="level-tile"][data-status="locked"]').first();
    expect(await success.locator('.level-tile-overlay svg').count()).toBe(1);
    expect(await locked.locator('.level-tile-overlay svg').count()).toBe(1);
    // Grey overlay on locked tiles, green on finished ones.
    const overlayColour = (tile: typeof success) => tile.locator('.level-tile-overlay').evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(await overlayColour(locked)).toMatch(/rgba\(96, 110, 124/);
    expect(await overlayColour(success)).toMatch(/rgba\(35, 134, 106/);
    expect(await locked.getAttribute('href')).toBeNull();

    // A placeholder for a level that does not exist yet, and the first course title on a real tile.
    const placeholder = frontEnd.locator('[data-testid="level-tile"]').last();
    expect(await placeholder.locator('.level-tile-title').innerText()).toBe('-');
    const successLevel = await levelOf('student@devplein.test', 'success');
    const firstCourse = (await courseTitles(successLevel.level_content_id!))[0]!;
    expect(await page.locator(`a[href="/level/${successLevel.id}"] .level-tile-title`).innerText()).toBe(firstCourse);

    // §9: the 16-level category shows 10 tiles for SD23.
    const projects = categories.filter({ has: page.getByRole('heading', { name: 'Projecten' }) });
    expect(await projects.getByTestId('level-tile').count()).toBe(10);

    await page.screenshot({ path: path.join(shots, 'levels-student.png'), fullPage: true });
    await context.close();
  });

  it('opens an open level: heading with the course titles, Terug top and bottom, accordion panels, file downloads', async () => {
    const open = await levelOf('student@devplein.test', 'open');
    const course = await e2e.database.knex('courses').where({ level_content_id: open.level_content_id }).orderBy('position').first<{ id: number }>();
    await createCourseFileStore(path.join(e2e.dataDir, 'course-files')).put('e2e-open-level-file', Buffer.from('%PDF-1.4 opdracht'));
    await e2e.database.knex('course_files').insert({
      course_id: course.id,
      title: 'Opdrachtbeschrijving',
      type: 'PDF',
      filename: 'opdracht.pdf',
      storage_key: 'e2e-open-level-file',
      size: 17,
      position: 0,
    });

    const { context, page } = await e2e.signInAs('student@devplein.test');
    await page.goto(`${e2e.url}/levels`);
    await page.locator(`a[href="/level/${open.id}"]`).click();
    await page.waitForURL(`${e2e.url}/level/${open.id}`);
    const titles = await courseTitles(open.level_content_id!);
    await page.getByRole('heading', { level: 1, name: `Level ${open.id}: ${titles.join(', ')}` }).waitFor();
    expect(await page.getByTestId('level-achieved').count()).toBe(0);
    const back = page.getByRole('link', { name: 'Terug' });
    expect(await back.count()).toBe(2);
    expect(await back.evaluateAll((links) => links.map((link) => link.getAttribute('href')))).toEqual(['/levels', '/levels']);

    // Each course is a section with accordion panels; the first panel is open.
    const firstCourse = page.getByTestId('course').first();
    const panels = firstCourse.locator('details');
    expect(await panels.first().getAttribute('open')).not.toBeNull();
    // Only this course has files, so exactly one 'Bestanden' panel.
    const files = page.getByTestId('course-files');
    expect(await files.count()).toBe(1);
    await files.locator('summary', { hasText: 'Bestanden' }).click();
    await files.getByText('PDF').waitFor();
    await page.screenshot({ path: path.join(shots, 'level-open.png'), fullPage: true });
    const [download] = await Promise.all([page.waitForEvent('download'), files.getByRole('link', { name: 'Opdrachtbeschrijving' }).click()]);
    expect(download.suggestedFilename()).toBe('opdracht.pdf');

    await back.last().click();
    await page.waitForURL(`${e2e.url}/levels`);
    await context.close();
  });

  it('shows the green banner "Level behaald" on a finished level', async () => {
    const success = await levelOf('student@devplein.test', 'success');
    const { context, page } = await e2e.signInAs('student@devplein.test');
    await page.goto(`${e2e.url}/level/${success.id}`);
    const banner = page.getByTestId('level-achieved');
    await banner.waitFor();
    expect(await banner.innerText()).toBe('Level behaald');
    expect(await banner.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(35, 134, 106)');
    await page.screenshot({ path: path.join(shots, 'level-success.png'), fullPage: true });
    await context.close();
  });

  it('shows a phone-sized levels page without horizontal scrolling', async () => {
    const { context, page } = await e2e.signInAs('student@devplein.test', { width: 390, height: 844 });
    await page.goto(`${e2e.url}/levels`);
    await page.getByTestId('level-tile').first().waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await page.screenshot({ path: path.join(shots, 'levels-phone.png') });
    await context.close();
  });

  it('has no Levels menu item for a student without a group', async () => {
    const { context, page } = await e2e.signInAs('zonderklas@devplein.test');
    const nav = page.getByRole('navigation', { name: 'Zijmenu' });
    await nav.getByRole('link', { name: 'Handige links' }).waitFor();
    expect(await nav.getByRole('link', { name: 'Levels', exact: true }).count()).toBe(0);
    await context.close();
  });
});

describe('Profile', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  it('shows a student their own profile with progress, without the request counter or SSH keys', async () => {
    const { context, page } = await e2e.signInAs('student@devplein.test');
    await page.getByRole('navigation', { name: 'Zijmenu' }).getByRole('link', { name: 'Profiel bewerken' }).click();
    await page.waitForURL(`${e2e.url}/profile`);
    await page.getByRole('heading', { level: 1, name: 'Profiel van Sam Student' }).waitFor();
    const table = page.getByRole('table');
    expect(await table.innerText()).toContain('student@devplein.test');
    expect(await table.innerText()).toContain('SD23');
    expect(await table.innerText()).toContain('Open dag 2025');
    await page.getByText('Front-end afgerond').waitFor();
    expect(await page.getByTestId('level-progress').count()).toBe(4);
    expect(await page.getByTestId('project-request-counter').count()).toBe(0);
    expect(await page.getByTestId('ssh-keys-section').count()).toBe(0);
    await page.screenshot({ path: path.join(shots, 'profile-student.png'), fullPage: true });
    await context.close();
  });

  it('shows the admin in team 1 the number of new project requests on their own profile, and their SSH keys', async () => {
    const waiting = Number((await e2e.database.knex('projects').whereNull('validated').count({ n: '*' }))[0]!.n);
    const { context, page } = await e2e.signInAs('admin@devplein.test');
    await page.getByRole('link', { name: 'Anna Admin' }).click();
    await page.waitForURL(/\/profile\/\d+\/anna-admin$/);
    await page.getByRole('heading', { level: 1, name: 'Profiel', exact: true }).waitFor();
    const counter = page.getByTestId('project-request-counter');
    await counter.getByText(String(waiting), { exact: true }).waitFor();
    expect(await counter.locator('.project-request-count').innerText()).toBe(`Nieuwe projectaanvragen: ${waiting}`);
    await page.getByTestId('ssh-keys-section').waitFor();
    await page.screenshot({ path: path.join(shots, 'profile-admin.png'), fullPage: true });
    await context.close();
  });

  it("shows someone else's profile as 'Profiel van {name}' without counter or SSH keys", async () => {
    const samId = await e2e.userIdOf('student@devplein.test');
    const { context, page } = await e2e.signInAs('admin@devplein.test');
    await page.goto(`${e2e.url}/profile/${samId}/sam-student`);
    await page.getByRole('heading', { level: 1, name: 'Profiel van Sam Student' }).waitFor();
    await page.getByText('Projecten afgerond').waitFor();
    expect(await page.getByTestId('project-request-counter').count()).toBe(0);
    expect(await page.getByTestId('ssh-keys-section').count()).toBe(0);
    await page.screenshot({ path: path.join(shots, 'profile-other.png'), fullPage: true });
    await context.close();
  });

  it('shows a developer their SSH keys section on their own profile only', async () => {
    const { context, page } = await e2e.signInAs('ontwikkelaar@devplein.test');
    await page.goto(`${e2e.url}/profile`);
    await page.getByRole('heading', { level: 1, name: 'Profiel van Olga Ontwikkelaar' }).waitFor();
    await page.getByTestId('ssh-keys-section').waitFor();
    expect(await page.getByTestId('project-request-counter').count()).toBe(0);
    await context.close();
  });
});

describe('Useful links and exams', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  it('shows both link tables, opening links in a new tab', async () => {
    const { context, page } = await e2e.signInAs('student@devplein.test');
    await page.getByRole('navigation', { name: 'Zijmenu' }).getByRole('link', { name: 'Handige links' }).click();
    await page.waitForURL(`${e2e.url}/useful-links`);
    await page.getByRole('heading', { level: 1, name: 'Handige links' }).waitFor();
    const internal = page.getByTestId('links-internal');
    for (const label of ['Git', 'Programmeerhulp', 'Scrumboard', 'Rooster', 'Webmail', 'Studentenadministratie', 'Stages', 'Examens']) {
      await internal.getByRole('link', { name: label, exact: true }).waitFor();
    }
    const learning = page.getByTestId('links-learning');
    expect(await learning.getByRole('link', { name: /W3Schools/ }).count()).toBeGreaterThan(1);
    expect(await learning.getByRole('link', { name: 'Laravel-documentatie' }).getAttribute('href')).toBe('https://laravel.com/docs');
    expect(await page.locator('main a[target="_blank"]:not([rel~="noopener"])').count()).toBe(0);
    await page.screenshot({ path: path.join(shots, 'useful-links.png'), fullPage: true });
    await context.close();
  });

  it('shows the exams placeholder', async () => {
    const { context, page } = await e2e.signInAs('student@devplein.test');
    await page.goto(`${e2e.url}/exams`);
    await page.getByRole('heading', { level: 1, name: 'Examens' }).waitFor();
    await page.getByText('Hier komt binnenkort informatie over de examens.').waitFor();
    await context.close();
  });
});
