/**
 * The websites wall at school scale: 1,500 visible sites and 3,000 extra users.
 * 1. GET /api/sites at 50 concurrent connections: the real control plane (session lookup + the
 *    wall query + JSON) side by side with a bare Koa endpoint serving the same bytes; req/s, p99
 *    and their ratio. Also the 304 path (If-None-Match), what a returning browser gets.
 * 2. /websites in headless Chromium: time from navigation start until all 1,500 tiles and the
 *    last cohort heading are in the DOM (median of several cold loads).
 * Builds the web app into a private directory first, so a rebuild of web/dist meanwhile
 * cannot break the page under measurement.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import Koa from 'koa';
import autocannon from 'autocannon';
import type { Server } from 'node:http';
import { seedSchoolScale } from './lib/school-scale.ts';
import { startBenchDatabase } from './lib/bench-database.ts';
import { startControlPlane } from '../tests/support/control-plane.ts';
import { HttpSession } from '../tests/support/http-session.ts';
import { findFreePort } from '../tests/support/ports.ts';
import { launchBrowser } from '../tests/support/browser.ts';

const CONNECTIONS = 50;
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const BROWSER_RUNS = Number(process.env.BENCH_BROWSER_RUNS ?? 5);
const root = path.resolve(import.meta.dirname, '..');

async function load(url: string, headers: Record<string, string>, expectStatus = 200) {
  let unexpected = 0;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, headers }, (error, done) =>
      error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(done),
    );
    instance.on('response', (_client, statusCode) => {
      if (statusCode !== expectStatus) unexpected += 1;
    });
  });
  if (unexpected > 0 || result.errors > 0) throw new Error(`${url}: ${unexpected} answers other than ${expectStatus}, ${result.errors} errors`);
  return { rps: result.requests.average, p99: result.latency.p99, total: result.requests.total };
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main() {
  const webDist = path.join(root, '.tmp/bench-sites-web');
  rmSync(webDist, { recursive: true, force: true });
  execFileSync(path.join(root, 'node_modules/.bin/vite'), ['build', '--outDir', webDist, '--emptyOutDir', '--logLevel', 'error'], {
    cwd: path.join(root, 'web'),
    stdio: 'inherit',
  });
  const database = await startBenchDatabase('devplein_bench_sites');
  const { url: databaseUrl, knex } = database;
  await seedSchoolScale(knex);
  const [{ count: siteCount }] = (await knex('projects').where({ visible: true }).count({ count: '*' })) as [{ count: number }];
  const [{ count: userCount }] = (await knex('users').count({ count: '*' })) as [{ count: number }];
  await knex.destroy();

  const app = await startControlPlane({ databaseUrl, env: { LOG_LEVEL: 'warn', WEB_DIST: webDist } });
  let bare: Server | undefined;
  try {
    // An anonymous visitor's browser: one session cookie, kept (as a browser keeps it).
    const visitor = new HttpSession(app.url);
    await visitor.primeCsrf();
    const cookie = ['devplein_session', 'devplein_session.sig', 'XSRF-TOKEN']
      .map((name) => `${name}=${visitor.cookie(name) ?? ''}`)
      .join('; ');
    const headers = { cookie, 'x-requested-with': 'XMLHttpRequest', accept: 'application/json' };
    const started = performance.now();
    const sample = await fetch(`${app.url}/api/sites`, { headers });
    const firstMs = performance.now() - started;
    if (sample.status !== 200) throw new Error(`GET /api/sites answered ${sample.status}`);
    const etag = sample.headers.get('etag') ?? '';
    const bytes = Buffer.from(await sample.arrayBuffer());
    const sites = JSON.parse(bytes.toString()) as unknown[];

    const barePort = await findFreePort();
    const bareApp = new Koa();
    bareApp.use((ctx) => {
      ctx.type = 'application/json';
      ctx.body = bytes;
    });
    bare = bareApp.listen(barePort, '127.0.0.1');
    const bareUrl = `http://127.0.0.1:${barePort}/`;

    await autocannon({ url: `${app.url}/api/sites`, connections: 10, duration: 2, headers });
    await autocannon({ url: bareUrl, connections: 10, duration: 2 });

    const real = await load(`${app.url}/api/sites`, headers);
    const baseline = await load(bareUrl, {});
    const revalidated = await load(`${app.url}/api/sites`, { ...headers, 'if-none-match': etag }, 304);

    console.log(`Data: ${userCount} users, ${siteCount} visible sites; GET /api/sites = ${sites.length} sites, ${(bytes.length / 1024).toFixed(0)} KiB; first (cold) answer ${firstMs.toFixed(0)} ms`);
    console.log(`GET /api/sites (anonymous visitor with a session cookie, ${CONNECTIONS} connections, ${DURATION_S} s)`);
    console.log(`  control plane : ${real.rps.toFixed(0)} req/s, p99 ${real.p99} ms (${real.total} requests)`);
    console.log(`  bare Koa      : ${baseline.rps.toFixed(0)} req/s, p99 ${baseline.p99} ms (${baseline.total} requests)`);
    console.log(`  ratio         : ${(real.rps / baseline.rps).toFixed(3)} of bare throughput; p99 ${(real.p99 / Math.max(baseline.p99, 1)).toFixed(1)}x`);
    console.log(`  304 revalidate: ${revalidated.rps.toFixed(0)} req/s, p99 ${revalidated.p99} ms (If-None-Match, no body)`);

    const browser = await launchBrowser();
    try {
      const renders: number[] = [];
      const painted: number[] = [];
      const firstTiles: number[] = [];
      const breakdown: Array<{ dom: number; user?: { startTime: number; responseEnd: number }; sites?: { startTime: number; responseEnd: number } }> = [];
      // Watches the DOM from the first byte: when the first tile appears, when all tiles and the
      // last cohort heading are in, and the frame after that (painted). performance.now() counts
      // from navigation start. A string, because tsx would wrap inner functions in a helper the page lacks.
      const watcher = `(() => {
        const expected = ${sites.length};
        const marks = (window.__wall = {});
        const check = () => {
          if (marks.first === undefined && document.querySelector('.site-tile')) marks.first = performance.now();
          if (marks.all !== undefined) return;
          const headings = document.querySelectorAll('.cohort-block h3');
          const last = headings.length > 0 ? headings[headings.length - 1].textContent : '';
          if (document.querySelectorAll('.cohort-blocks .site-tile').length === expected && last.startsWith('Projecten van Niet ingedeeld')) {
            marks.all = performance.now();
            requestAnimationFrame(() => setTimeout(() => { marks.painted = performance.now(); }, 0));
          }
        };
        new MutationObserver(check).observe(document, { childList: true, subtree: true });
      })()`;
      for (let run = 0; run < BROWSER_RUNS; run += 1) {
        const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
        await context.addInitScript(watcher);
        const page = await context.newPage();
        await page.goto(`${app.url}/websites`, { waitUntil: 'commit' });
        const marks = (await (
          // A function, not a string: the page's CSP (script-src 'self') forbids evaluating a string in it.
          await page.waitForFunction(() => {
            const wall = (window as unknown as { __wall?: { painted?: number } }).__wall;
            return wall && wall.painted !== undefined ? wall : false;
          }, undefined, {
            polling: 100,
            timeout: 60_000,
          })
        ).jsonValue()) as { first: number; all: number; painted: number };
        // A string, not a function: tsx would wrap inner functions in a helper the page lacks.
        const timing = (await page.evaluate(`(() => {
          const entry = (suffix) => {
            const found = performance.getEntriesByType('resource').find((item) => item.name.endsWith(suffix));
            return found ? { startTime: found.startTime, responseEnd: found.responseEnd } : undefined;
          };
          const navigation = performance.getEntriesByType('navigation')[0];
          return { dom: navigation ? navigation.domContentLoadedEventEnd : 0, user: entry('/api/user'), sites: entry('/api/sites') };
        })()`)) as (typeof breakdown)[number];
        breakdown.push(timing);
        firstTiles.push(marks.first);
        renders.push(marks.all);
        painted.push(marks.painted);
        if (run === 0) await page.screenshot({ path: path.join(root, '.tmp/shots/websites-bench-1500.png') });
        await context.close();
      }
      console.log(`/websites with ${sites.length} tiles in headless Chromium (1440×900, cold cache, ${BROWSER_RUNS} runs)`);
      const ms = (values: number[]) => `${median(values).toFixed(0)} ms`;
      console.log(`  DOMContentLoaded           : median ${ms(breakdown.map((entry) => entry.dom))}`);
      console.log(
        `  GET /api/user              : median ${ms(breakdown.map((entry) => entry.user?.startTime ?? NaN))} → ${ms(breakdown.map((entry) => entry.user?.responseEnd ?? NaN))}`,
      );
      console.log(
        `  GET /api/sites             : median ${ms(breakdown.map((entry) => entry.sites?.startTime ?? NaN))} → ${ms(breakdown.map((entry) => entry.sites?.responseEnd ?? NaN))}`,
      );
      console.log(`  first tile in DOM          : median ${median(firstTiles).toFixed(0)} ms after navigation start`);
      console.log(`  all tiles + last cohort    : median ${median(renders).toFixed(0)} ms (runs: ${renders.map((ms) => ms.toFixed(0)).join(', ')})`);
      console.log(`  ... and painted (next frame): median ${median(painted).toFixed(0)} ms`);
    } finally {
      await browser.close();
    }
  } finally {
    bare?.close();
    await app.stop();
    await database.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
