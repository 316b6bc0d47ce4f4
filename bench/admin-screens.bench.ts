/**
 * The two big admin screens in headless Chromium, measured inside the page (performance.now()
 * from the input/change event until a MutationObserver sees the expected DOM; "painted" is the
 * frame after that):
 * 1. /admin/users with 400 users: typing a name filter until the table shows exactly the
 *    filtered rows (20 different filters, each starting from the full list).
 * 2. /admin/levels: choosing a group of 40 students (with levels in every category) until every
 *    cell of every category is in the DOM (10 rounds, switching to SD22 and back in between).
 * 3. /admin/levels: one status change until its cell shows it (optimistic; 20 rounds).
 * Prints median and p95 per measure with a target for reference. The targets do not fail the
 * run; wrong rows, a missing cell, a refused request or a timeout do (exit 1).
 *
 * Serves a private copy of web/dist (snapshotWebDist): build the web app first.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import type { Page } from 'playwright-core';
import { createKnex, migrate } from '../control-plane/src/db/knex.ts';
import { seedDemoData } from '../control-plane/src/db/seed.ts';
import { startPostgres } from '../tests/support/services/postgres.ts';
import { startControlPlane } from '../tests/support/services/control-plane.ts';
import { launchBrowser } from '../tests/support/clients/browser.ts';
import { signIn, snapshotWebDist } from '../tests/support/stacks/e2e-app.ts';

const USERS = 400;
const COHORT_SIZE = 40;
const GROUP_ROUNDS = 10;
const STATUS_ROUNDS = 20;
const ADMIN = 'admin@devplein.test';

/** The users page's search text (web/src/api/queries/adminUsers.ts searchText): no accents, lower case. */
const searchText = (text: string): string => text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().trim();

/** The 20 rounds of the filter measure: name filters with different result sizes (1 to a few hundred rows, none empty). */
const FILTERS = [
  'leerling 12',
  'leerling 0',
  'de vries',
  'jansen',
  'leerling 1',
  'leerling 25',
  'leerling 007',
  'leerling 3',
  'proef student',
  'leerling 19',
  'vries',
  'leerling 05',
  'leerling 2',
  'student 1',
  'leerling 34',
  'jan',
  'leerling 11',
  'e',
  'leerling 28',
  'chloe',
];

/** 400 users in all, as tests/e2e/admin-users.test.ts adds them: a tenth not activated, spread over the groups. */
async function addUsers(knex: Knex): Promise<void> {
  const existing = Number(((await knex('users').count({ n: '*' })) as [{ n: string }])[0].n);
  const groups = await knex('groups').pluck<number[]>('id');
  await knex.batchInsert(
    'users',
    Array.from({ length: USERS - existing }, (_, i) => ({
      name: `Leerling ${String(i).padStart(3, '0')} ${i % 3 === 0 ? 'de Vries' : 'Jansen'}`,
      name_slug: `leerling-${i}`,
      email: `leerling${i}@student.devplein.test`,
      email_verified_at: i % 10 === 0 ? null : new Date(),
      group_id: groups[i % groups.length] ?? null,
    })),
    200,
  );
}

/** Cohort SD99: 40 students with levels in every category, as tests/e2e/admin-levels.test.ts sets it up. */
async function addCohort(knex: Knex): Promise<{ categories: number; totalColumns: number }> {
  const [group] = await knex('groups').insert({ cohort: 'SD99' }).returning('id');
  const users = await knex('users')
    .insert(
      Array.from({ length: COHORT_SIZE }, (_, index) => ({
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
  return { categories: categories.length, totalColumns };
}

interface Timing {
  /** ms from the event until the expected DOM. */
  dom: number;
  /** ms from the event until the frame after that. */
  painted: number;
}

/*
 * The in-page side, as a string: tsx would wrap inner functions of a function passed to
 * page.evaluate in a helper the page lacks. window.__bench.measure(act, check) runs `act`,
 * then resolves when a MutationObserver (on `root`) first sees `check()` true.
 */
const IN_PAGE = `(() => {
  const TIMEOUT_MS = 15000;
  const measure = (label, root, options, act, check) => new Promise((resolve, reject) => {
    let started = 0;
    let done = false;
    const finish = () => {
      done = true;
      observer.disconnect();
      clearTimeout(timer);
      const dom = performance.now() - started;
      requestAnimationFrame(() => setTimeout(() => resolve({ dom, painted: performance.now() - started }), 0));
    };
    const observer = new MutationObserver(() => {
      if (!done && check()) finish();
    });
    const timer = setTimeout(() => {
      observer.disconnect();
      reject(new Error('timed out after ' + TIMEOUT_MS + ' ms: ' + label));
    }, TIMEOUT_MS);
    observer.observe(root, options);
    started = performance.now();
    act();
  });
  const setInput = (input, value) => {
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(input, value);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  };
  const setSelect = (select, value) => {
    select.value = value;
    select.dispatchEvent(new Event('change', { bubbles: true }));
  };
  const userNames = () =>
    Array.from(document.querySelectorAll('[data-testid="admin-users"] [data-testid="user-name"]'), (element) => element.textContent.trim());
  window.__bench = {
    /** Types the whole filter into Naam at once; done when the table holds exactly 'expected' (any order). */
    filter(inputSelector, term, expected) {
      const sorted = [...expected].sort();
      const input = document.querySelector(inputSelector);
      return measure('filter ' + JSON.stringify(term), document.body, { childList: true, subtree: true, characterData: true }, () => setInput(input, term), () => {
        if (document.querySelectorAll('[data-testid="admin-users"] [data-testid="user-name"]').length !== sorted.length) return false;
        const names = userNames().sort();
        return names.every((name, index) => name === sorted[index]);
      });
    },
    /** Chooses a group; done when 'cells' level cells (null: any) and 'proefRows' rows of Proef students are in the DOM. */
    group(value, cells, proefRows) {
      return measure('group ' + value, document.body, { childList: true, subtree: true }, () => setSelect(document.querySelector('#level-group'), value), () =>
        (cells === null || document.querySelectorAll('[data-testid="level-cell"]').length === cells) &&
        document.querySelectorAll('tr[data-student^="Proef Student"]').length === proefRows &&
        (proefRows > 0 || document.querySelectorAll('[data-testid="student-row"]').length > 0));
    },
    /** Changes the status of level 1 (first category) of 'student'; done when the cell's data-status shows it. */
    status(student) {
      const cell = document.querySelector('tr[data-student="' + student + '"] td[data-number="1"]');
      const before = cell.getAttribute('data-status');
      const next = before === 'success' ? 'open' : 'success';
      return measure('status of ' + student, cell, { attributes: true, attributeFilter: ['data-status'] }, () => setSelect(cell.querySelector('select'), next), () =>
        cell.getAttribute('data-status') === next).then((timing) => ({ ...timing, next }));
    },
  };
})()`;

const sortedNumbers = (values: number[]): number[] => [...values].sort((a, b) => a - b);
const median = (values: number[]): number => {
  const sorted = sortedNumbers(values);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
/** Nearest rank: of 20 values the 19th, of 10 the 10th (the largest). */
const p95 = (values: number[]): number => sortedNumbers(values)[Math.ceil(values.length * 0.95) - 1]!;

async function measureFilter(page: Page, appUrl: string, verifiedNames: string[]): Promise<Timing[]> {
  await page.goto(`${appUrl}/admin/users`);
  await page.getByTestId('admin-users').waitFor();
  await page.getByRole('checkbox', { name: 'Niet geactiveerd' }).uncheck();
  // The Naam field (its id comes from React's useId, awkward in a selector).
  const inputSelector = 'form[role="search"] input[name="name"]';
  await page.locator(inputSelector).waitFor();
  await page.evaluate(IN_PAGE);
  const run = (term: string) => {
    const expected = term === '' ? verifiedNames : verifiedNames.filter((name) => searchText(name).includes(searchText(term)));
    if (expected.length === 0) throw new Error(`filter ${term} matches no one: pick another`);
    return page.evaluate(`window.__bench.filter(${JSON.stringify(inputSelector)}, ${JSON.stringify(term)}, ${JSON.stringify(expected)})`) as Promise<Timing>;
  };
  // Each round starts from the full list (the reset is not measured); two warm-up rounds first.
  await page.locator('[data-testid="admin-users"] [data-testid="user-name"]').nth(verifiedNames.length - 1).waitFor();
  const timings: Timing[] = [];
  for (const [index, term] of ['leerling 33', 'leerling 08', ...FILTERS].entries()) {
    if (index > 0) await run('');
    const timing = await run(term);
    if (index >= 2) timings.push(timing);
  }
  return timings;
}

async function measureGroups(page: Page, appUrl: string, cohort: { categories: number; totalColumns: number }) {
  const byGroupRequests: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith('/api/users/by-group/')) byGroupRequests.push(url.pathname);
  });
  await page.goto(`${appUrl}/admin/levels`);
  const groupSelect = page.getByLabel('Groep');
  await groupSelect.locator('option', { hasText: 'SD99' }).waitFor({ state: 'attached' });
  const valueOf = async (cohortName: string) => (await groupSelect.locator('option', { hasText: cohortName }).getAttribute('value')) ?? '';
  const sd99 = await valueOf('SD99');
  const sd22 = await valueOf('SD22');
  await page.evaluate(IN_PAGE);
  const cells = COHORT_SIZE * cohort.totalColumns;
  const timings: Timing[] = [];
  for (let round = 0; round < GROUP_ROUNDS; round += 1) {
    // The other group first (not measured), so every round switches to SD99 from a different table.
    await page.evaluate(`window.__bench.group(${JSON.stringify(sd22)}, null, 0)`);
    await page.waitForTimeout(500); // content options (300 ms later) and revalidation settle
    timings.push((await page.evaluate(`window.__bench.group(${JSON.stringify(sd99)}, ${cells}, ${COHORT_SIZE * cohort.categories})`)) as Timing);
    await page.waitForTimeout(500);
  }
  return { timings, cells, byGroupRequests: byGroupRequests.length };
}

async function measureStatus(page: Page, knex: Knex): Promise<Timing[]> {
  // On /admin/levels with SD99 shown (measureGroups left it there).
  const timings: Timing[] = [];
  const changed = new Map<string, string>();
  for (let round = -2; round < STATUS_ROUNDS; round += 1) {
    // Two warm-up rounds (students 39 and 40), then students 01..20: each a different row.
    const student = `Proef Student ${String(round < 0 ? COHORT_SIZE + 1 + round : round + 1).padStart(2, '0')}`;
    const stored = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/level/update-status');
    const timing = (await page.evaluate(`window.__bench.status(${JSON.stringify(student)})`)) as Timing & { next: string };
    const response = await stored;
    if (response.status() !== 200) throw new Error(`POST /api/level/update-status for ${student} answered ${response.status()}`);
    changed.set(student, timing.next);
    if (round >= 0) timings.push(timing);
  }
  // The changes were stored, not only shown.
  const firstCategory = await knex('level_categories').orderBy('id').first<{ id: number }>('id');
  const rows = await knex('levels')
    .join('users', 'users.id', 'levels.user_id')
    .where({ 'levels.level_category_id': firstCategory.id, 'levels.number': 1 })
    .whereIn('users.name', [...changed.keys()])
    .select<Array<{ name: string; status: string }>>('users.name', 'levels.status');
  for (const row of rows) {
    if (changed.get(row.name) !== row.status) throw new Error(`${row.name}: shown ${changed.get(row.name)}, stored ${row.status}`);
  }
  if (rows.length !== changed.size) throw new Error(`stored ${rows.length} of ${changed.size} changed levels`);
  return timings;
}

async function main() {
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      for (const cleanup of cleanups.reverse()) {
        try {
          await cleanup();
        } catch (error) {
          console.error('cleanup failed:', error);
        }
      }
    })();
    return stopping;
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void stop().finally(() => process.exit(130)));
  }

  try {
    const webDist = await snapshotWebDist();
    cleanups.push(() => rmSync(webDist, { recursive: true, force: true }));
    const dataDir = mkdtempSync(path.join(tmpdir(), 'devplein-bench-admin-data-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));

    const postgres = await startPostgres();
    cleanups.push(() => postgres.stop());
    const databaseUrl = postgres.url.replace(/\/postgres$/, '/devplein_bench_admin');
    const admin = createKnex({ databaseUrl: postgres.url, dataDir: '.tmp' });
    await admin.raw('create database devplein_bench_admin');
    await admin.destroy();
    const knex = createKnex({ databaseUrl, dataDir: '.tmp' });
    cleanups.push(() => knex.destroy());
    await migrate(knex);
    await seedDemoData(knex);
    await addUsers(knex);
    const cohort = await addCohort(knex);
    await knex.raw('analyze');
    const verifiedNames = await knex('users').whereNotNull('email_verified_at').pluck<string[]>('name');
    const [{ n: userCount }] = (await knex('users').count({ n: '*' })) as [{ n: string }];

    const app = await startControlPlane({ databaseUrl, env: { LOG_LEVEL: 'warn', WEB_DIST: webDist, DATA_DIR: dataDir } });
    cleanups.push(() => app.stop());
    const browser = await launchBrowser();
    cleanups.push(() => browser.close());
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    await signIn(page, app.url, ADMIN);

    const filter = await measureFilter(page, app.url, verifiedNames);
    const groups = await measureGroups(page, app.url, cohort);
    const status = await measureStatus(page, knex);

    const ms = (value: number) => `${value.toFixed(1)} ms`.padStart(9);
    const line = (label: string, timings: Timing[], target: string) => {
      const dom = timings.map((timing) => timing.dom);
      const painted = timings.map((timing) => timing.painted);
      console.log(
        `  ${label.padEnd(34)} ${String(timings.length).padStart(6)}  ${ms(median(dom))}  ${ms(p95(dom))}  ${ms(median(painted))}  ${ms(p95(painted))}   ${target}`,
      );
    };
    console.log(
      `Data: ${userCount} users (${verifiedNames.length} activated), cohort SD99 of ${COHORT_SIZE} students × ${cohort.totalColumns} levels over ${cohort.categories} categories = ${groups.cells} cells`,
    );
    console.log('Headless Chromium 1440×900, measured in the page: event → expected DOM (MutationObserver) → next frame (painted)');
    console.log(`  ${'measure'.padEnd(34)} ${'rounds'}  ${'DOM med'.padStart(9)}  ${'DOM p95'.padStart(9)}  ${'paint med'.padStart(9)}  ${'paint p95'.padStart(9)}   target (reference, not enforced)`);
    line('users: name filter (400 users)', filter, 'target: median < 100 ms (feels instant)');
    line('levels: choose 40-student group', groups.timings, 'target: median < 1000 ms');
    line('levels: one status change', status, 'target: median < 100 ms (optimistic)');
    const firstGroup = groups.timings[0]!;
    console.log(
      `  group, first round (fetches GET /api/users/by-group): DOM ${firstGroup.dom.toFixed(1)} ms, painted ${firstGroup.painted.toFixed(1)} ms; later rounds render SWR's cached copy (${groups.byGroupRequests} by-group requests in ${GROUP_ROUNDS * 2} switches)`,
    );
    console.log(`  filter rounds (DOM ms): ${filter.map((timing, index) => `${FILTERS[index]}=${timing.dom.toFixed(0)}`).join(', ')}`);
    console.log(`  group rounds  (DOM ms): ${groups.timings.map((timing) => timing.dom.toFixed(0)).join(', ')}`);
    await context.close();
  } finally {
    await stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
