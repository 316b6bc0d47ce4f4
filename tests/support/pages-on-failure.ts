/**
 * Setup file (vitest.config.ts): when a test fails with browser pages open, each page is saved as
 * .tmp/shots/failed-<test>-<n>.png and its address, first heading and last requests and console
 * lines go into the log and into the test's meta, which the summary line of a failure prints: a
 * CI log's tail then says what the page showed and why, not only which wait ran out.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { closedPagesOfThisTest, forgetClosedPages, openPages, pathOf, recentPageEvents } from './clients/open-browsers.ts';

declare module 'vitest' {
  interface TaskMeta {
    /** What the open pages showed when the test failed. */
    openPages?: string;
  }
}

const slug = (text: string): string => text.toLowerCase().replace(/[^a-z0-9]+/g, '-').slice(0, 60).replace(/^-|-$/g, '');

beforeEach(() => forgetClosedPages());

afterEach(async (context) => {
  if (context.task.result?.state !== 'fail') return;
  const pages = openPages();
  const closed = closedPagesOfThisTest();
  if (pages.length === 0 && closed.length === 0) return;
  const shots = path.resolve('.tmp/shots');
  mkdirSync(shots, { recursive: true });
  const described: string[] = [];
  // Pages the test closed itself (a context closed in `finally`): as they were just before.
  for (const [index, page] of closed.entries()) {
    if (page.picture) writeFileSync(path.join(shots, `failed-${slug(context.task.name)}-closed-${index + 1}.jpg`), page.picture);
    described.push(`(closed) ${pathOf(page.url)}${page.events.length > 0 ? ` {${page.events.join('; ')}}` : ''}`);
  }
  for (const [index, page] of pages.entries()) {
    if (page.isClosed()) continue;
    const file = path.join(shots, `failed-${slug(context.task.name)}-${index + 1}.png`);
    await page.screenshot({ path: file, fullPage: true, timeout: 5_000 }).catch(() => undefined);
    const heading = await page
      .locator('h1, h2')
      .first()
      .textContent({ timeout: 1_000 })
      .catch(() => null);
    const address = pathOf(page.url());
    const events = recentPageEvents(page);
    described.push(`${address} "${heading?.trim() ?? ''}"${events.length > 0 ? ` {${events.join('; ')}}` : ''}`);
  }
  context.task.meta.openPages = described.join(', ');
  console.log(`[failed test] ${context.task.name}: open pages ${described.join(', ')} (pictures: ${shots}/failed-${slug(context.task.name)}-*)`);
});
