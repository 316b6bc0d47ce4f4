import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { E2E_TEST_TIMEOUT_MS, shotsDir, signIn, startE2eApp, type E2eApp } from '../support/stacks/e2e-app.ts';

const shots = shotsDir();
const FALLBACK = '/images/without-screen.png';
let e2e: E2eApp;

/** A real PNG that is clearly not the fallback: a little green "site" rendered by Chromium. */
async function renderThumbnail(browser: Browser, label: string, colour: string): Promise<Buffer> {
  const page = await browser.newPage({ viewport: { width: 320, height: 200 } });
  await page.setContent(
    `<body style="margin:0;height:200px;display:grid;place-items:center;background:${colour};color:#fff;font:700 28px sans-serif">${label}</body>`,
  );
  const png = await page.screenshot({ type: 'png' });
  await page.close();
  return png;
}

beforeAll(async () => {
  e2e = await startE2eApp({
    // Thumbnails rendered by the (already launched) Chromium are stored before the control plane starts.
    beforeStart: async ({ database, browser }) => {
      const thumbnails = [
        { name: 'sam-portfolio', label: 'Sam', colour: '#2f9e7d' },
        { name: 'webshop-groen', label: 'Webshop', colour: '#1d5b8f' },
        { name: 'quiz-master', label: 'Quiz!', colour: '#8f3b1d' },
      ];
      for (const thumbnail of thumbnails) {
        const project = await database.knex('projects').where({ name: thumbnail.name }).first<{ id: number }>('id');
        await database.knex('thumbnails').insert({
          project_id: project!.id,
          png: await renderThumbnail(browser, thumbnail.label, thumbnail.colour),
          etag: `e2e-${thumbnail.name}`,
          captured_at: new Date(),
        });
      }
    },
  });
});

afterAll(async () => {
  await e2e?.stop();
});

async function openWall(options: { email?: string; phone?: boolean } = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await e2e.browser.newContext(
    options.phone
      ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 }
      : { viewport: { width: 1440, height: 900 } },
  );
  const page = await context.newPage();
  if (options.email) await signIn(page, e2e.url, options.email);
  await page.goto(`${e2e.url}/websites`);
  await page.getByRole('heading', { name: 'Alle projecten' }).waitFor();
  return { context, page };
}

const cohortHeadings = async (page: Page): Promise<string[]> =>
  (await page.locator('.cohort-block h3').allTextContents()).map((text) => text.replace(/\s*\d+$/, '').trim());

const tile = (page: Page, name: string) => page.locator('.site-tile').filter({ has: page.locator('.site-name', { hasText: new RegExp(`^${name}$`) }) });

async function imageState(page: Page, name: string): Promise<{ src: string; loaded: boolean; naturalWidth: number }> {
  const image = tile(page, name).first().locator('img');
  await image.scrollIntoViewIfNeeded();
  await page.waitForFunction(
    (element) => element instanceof HTMLImageElement && element.complete && (element.naturalWidth > 0 || element.dataset.fallback === 'true'),
    await image.elementHandle(),
  );
  // When the thumbnail failed, wait until the fallback itself has loaded.
  await page.waitForFunction((element) => element instanceof HTMLImageElement && element.complete, await image.elementHandle());
  return image.evaluate((element: HTMLImageElement) => ({
    src: new URL(element.currentSrc || element.src).pathname,
    loaded: element.complete,
    naturalWidth: element.naturalWidth,
  }));
}

describe('the websites wall in Chromium', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  it('shows every cohort block, filter buttons, tiles that open the site in a new tab, and the fallback image', async () => {
    const { context, page } = await openWall();
    await expect.poll(() => cohortHeadings(page)).toEqual([
      'Projecten van SD20',
      'Projecten van SD21',
      'Projecten van SD22',
      'Projecten van SD23',
      'Projecten van Niet ingedeeld',
    ]);
    const filters = await page.getByRole('group', { name: 'Filter op klas' }).getByRole('button').allTextContents();
    expect(filters).toEqual(['Allemaal', 'SD20', 'SD21', 'SD22', 'SD23', 'Niet ingedeeld']);
    expect(await page.getByPlaceholder('Zoek naam').count()).toBe(1);
    expect(await page.getByRole('heading', { name: 'Jouw websites' }).count()).toBe(0);
    // Hidden projects are not on the wall.
    expect(await tile(page, 'olga-api').count()).toBe(0);
    expect(await tile(page, 'kantine-app').count()).toBe(0);

    const link = tile(page, 'webshop-groen').getByRole('link');
    expect(await link.getAttribute('href')).toBe('http://webshop-groen.dev.devplein.test');
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await link.getAttribute('rel')).toContain('noopener');
    const image = tile(page, 'webshop-groen').locator('img');
    expect(await image.getAttribute('loading')).toBe('lazy');
    expect(await image.getAttribute('width')).toBe('320');
    expect(await image.getAttribute('height')).toBe('200');
    expect(await image.getAttribute('src')).toBe('/misc/browserimg2/small/webshop-groen_s.png');
    expect(await tile(page, 'webshop-groen').textContent()).toContain('Olga Ontwikkelaar, Lars de Graaf, Emma Smits');

    const withThumbnail = await imageState(page, 'webshop-groen');
    expect(withThumbnail.src).toBe('/misc/browserimg2/small/webshop-groen_s.png');
    expect(withThumbnail.naturalWidth).toBeGreaterThan(0);
    const without = await imageState(page, 'daan-portfolio');
    expect(without.src).toBe(FALLBACK);
    expect(without.naturalWidth).toBe(320);

    // The placeholder user of §3 is not shown as a member. (textContent: tiles far below the
    // fold are not rendered yet — content-visibility — so they have no innerText.)
    expect(await tile(page, 'zoe-blog').textContent()).toContain('Zoë Zonderklas');
    expect(await tile(page, 'zoe-blog').textContent()).not.toContain('unknown');

    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(shots, 'websites-desktop.png') });
    await page.screenshot({ path: path.join(shots, 'websites-desktop-full.png'), fullPage: true });
    await context.close();
  });

  it('asks for no thumbnail a site does not have: the placeholder at once, no 404 and no console error', async () => {
    const context = await e2e.browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const asked: string[] = [];
    const failed: string[] = [];
    const consoleErrors: string[] = [];
    page.on('request', (request) => {
      const { pathname } = new URL(request.url());
      if (pathname.startsWith('/misc/browserimg2/')) asked.push(pathname);
    });
    page.on('response', (response) => {
      if (response.status() >= 400) failed.push(`${response.status()} ${new URL(response.url()).pathname}`);
    });
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    // Signed in: an anonymous visitor's start-up GET /api/user is a 401 (and a console line) of its own.
    await signIn(page, e2e.url, 'student@devplein.test');
    await page.goto(`${e2e.url}/websites`);
    await page.getByRole('heading', { name: 'Alle projecten' }).waitFor();
    // Bring every tile into view (images load lazily), then wait until every image has loaded.
    const images = page.locator('.cohort-blocks .site-tile img');
    const count = await images.count();
    expect(count).toBeGreaterThan(5);
    for (let index = 0; index < count; index += 1) await images.nth(index).scrollIntoViewIfNeeded();
    await expect
      .poll(() => images.evaluateAll((elements) => elements.every((element) => element instanceof HTMLImageElement && element.complete && element.naturalWidth > 0)))
      .toBe(true);

    // Only the three sites with a stored thumbnail were asked for; every other tile shows the placeholder.
    expect([...new Set(asked)].sort()).toEqual([
      '/misc/browserimg2/small/quiz-master_s.png',
      '/misc/browserimg2/small/sam-portfolio_s.png',
      '/misc/browserimg2/small/webshop-groen_s.png',
    ]);
    const daan = tile(page, 'daan-portfolio').locator('img');
    expect(await daan.getAttribute('src')).toBe(FALLBACK);
    expect(await daan.evaluate((element: HTMLImageElement) => element.naturalWidth)).toBe(320);
    expect(failed).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  });

  it('filters by cohort and by site or member name', async () => {
    const { context, page } = await openWall();
    const filters = page.getByRole('group', { name: 'Filter op klas' });

    await filters.getByRole('button', { name: 'SD22' }).click();
    await expect.poll(() => cohortHeadings(page)).toEqual(['Projecten van SD22']);
    expect(await filters.getByRole('button', { name: 'SD22' }).getAttribute('aria-pressed')).toBe('true');
    expect(await tile(page, 'webshop-groen').count()).toBe(1);
    expect(await tile(page, 'daan-portfolio').count()).toBe(0);

    await filters.getByRole('button', { name: 'Niet ingedeeld' }).click();
    await expect.poll(() => cohortHeadings(page)).toEqual(['Projecten van Niet ingedeeld']);
    expect(await tile(page, 'zoe-blog').count()).toBe(1);

    await filters.getByRole('button', { name: 'Allemaal' }).click();
    await expect.poll(async () => (await cohortHeadings(page)).length).toBe(5);

    const search = page.getByPlaceholder('Zoek naam');
    await search.fill('Emma Smits'); // a member's name
    await expect.poll(() => page.locator('.cohort-blocks .site-name').allTextContents()).toEqual(['webshop-groen']);
    await search.fill('PORTFOLIO'); // part of site names, any case
    await expect
      .poll(() => page.locator('.cohort-blocks .site-name').allTextContents())
      .toEqual(['daan-portfolio', 'roos-portfolio', 'sam-portfolio', 'yara-portfolio']);
    await page.screenshot({ path: path.join(shots, 'websites-search.png') });

    // Search and cohort together.
    await filters.getByRole('button', { name: 'SD23' }).click();
    await expect
      .poll(() => page.locator('.cohort-blocks .site-name').allTextContents())
      .toEqual(['sam-portfolio', 'yara-portfolio']);

    await search.fill('bestaat-echt-niet');
    await page.getByText('Geen projecten gevonden.', { exact: false }).waitFor();
    await context.close();
  });

  it("shows 'Jouw websites' to a member of a visible project, and not to someone without one", async () => {
    const member = await openWall({ email: 'student@devplein.test' });
    const own = member.page.locator('section.own-websites');
    await member.page.getByRole('heading', { name: 'Jouw websites' }).waitFor();
    expect(await own.locator('.site-name').allTextContents()).toEqual(['sam-portfolio']);
    const mine = await imageState(member.page, 'sam-portfolio');
    expect(mine.src).toBe('/misc/browserimg2/small/sam-portfolio_s.png');
    await member.page.evaluate(() => window.scrollTo(0, 0));
    await member.page.screenshot({ path: path.join(shots, 'websites-member.png') });
    await member.context.close();

    // Zoë's only site sits under 'Niet ingedeeld' behind the placeholder user: still hers.
    const ungrouped = await openWall({ email: 'zonderklas@devplein.test' });
    await ungrouped.page.getByRole('heading', { name: 'Jouw websites' }).waitFor();
    expect(await ungrouped.page.locator('section.own-websites .site-name').allTextContents()).toEqual(['zoe-blog']);
    await ungrouped.context.close();

    const teacher = await openWall({ email: 'docent@devplein.test' });
    await teacher.page.locator('.cohort-block').first().waitFor();
    expect(await teacher.page.getByRole('heading', { name: 'Jouw websites' }).count()).toBe(0);
    await teacher.context.close();
  });

  it('fits a phone: two columns, the filter wraps, the search takes the full width', async () => {
    const { context, page } = await openWall({ email: 'student@devplein.test', phone: true });
    await page.locator('.cohort-block').first().waitFor();
    const columns = await page
      .locator('.cohort-block .site-grid')
      .first()
      .evaluate((grid) => getComputedStyle(grid).gridTemplateColumns.split(' ').length);
    expect(columns).toBe(2);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: path.join(shots, 'websites-phone.png') });
    await page.getByRole('heading', { name: 'Alle projecten' }).scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(shots, 'websites-phone-wall.png') });
    await context.close();
  });

  it('uses up to 8 columns on a wide screen', async () => {
    const { context, page } = await openWall();
    const columns = await page
      .locator('.cohort-block .site-grid')
      .first()
      .evaluate((grid) => getComputedStyle(grid).gridTemplateColumns.split(' ').length);
    expect(columns).toBe(8);
    await context.close();
  });
});
