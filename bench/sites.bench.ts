/**
 * The websites wall at school scale: 3,000 extra users and 1,500 visible sites, then 3,000.
 * 1. What GET /api/sites weighs on the wire at 1,500 and 3,000 sites: uncompressed, gzip, brotli.
 * 2. GET /api/sites at 1,500 sites, 50 concurrent connections, as a browser asks (Accept-Encoding
 *    gzip, deflate, br): the real control plane (session lookup + the wall query + the kept
 *    compressed answer) side by side with a bare Koa endpoint serving the same encoded bytes;
 *    req/s, p99 and their ratio. Also the 304 path (If-None-Match), what a returning browser gets.
 * 3. /websites in headless Chromium, under the app's own CSP (no bypassCSP): time from navigation
 *    start until all tiles and the last cohort heading are in the DOM (median of several cold
 *    loads), at 1,500 and at 3,000 sites.
 * Builds the web app into a private directory first, so a rebuild of web/dist meanwhile
 * cannot break the page under measurement.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import Koa from 'koa';
import autocannon from 'autocannon';
import type { Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { addSchoolSites, seedSchoolScale } from './lib/school-scale.ts';
import { startBenchDatabase } from './lib/bench-database.ts';
import { startControlPlane } from '../tests/support/services/control-plane.ts';
import { HttpSession } from '../tests/support/clients/http-session.ts';
import { findFreePort } from '../tests/support/clients/ports.ts';
import { launchBrowser } from '../tests/support/clients/browser.ts';

const CONNECTIONS = 50;
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const BROWSER_RUNS = Number(process.env.BENCH_BROWSER_RUNS ?? 5);
/** What Chromium sends. */
const BROWSER_ACCEPT_ENCODING = 'gzip, deflate, br, zstd';
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
const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;

interface WireAnswer {
  encoding: string;
  etag: string;
  body: Buffer;
}

/** One GET as it travels: the raw (still encoded) bytes, so their size is the size on the wire. */
function rawGet(url: string, headers: Record<string, string>): Promise<WireAnswer> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          if (response.statusCode !== 200) reject(new Error(`GET ${url} answered ${response.statusCode}`));
          else resolve({ encoding: String(response.headers['content-encoding'] ?? 'identity'), etag: String(response.headers.etag ?? ''), body: Buffer.concat(chunks) });
        });
        response.on('error', reject);
      })
      .on('error', reject);
  });
}

/** The websites answer in each encoding, and what a browser gets (its Accept-Encoding). */
async function wireSizes(url: string, headers: Record<string, string>) {
  const identity = await rawGet(url, headers);
  const gzip = await rawGet(url, { ...headers, 'accept-encoding': 'gzip' });
  const br = await rawGet(url, { ...headers, 'accept-encoding': 'br' });
  const browser = await rawGet(url, { ...headers, 'accept-encoding': BROWSER_ACCEPT_ENCODING });
  const sites = (JSON.parse(identity.body.toString('utf8')) as Array<{ thumbnail: boolean }>);
  return { identity, gzip, br, browser, sites: sites.length, withThumbnail: sites.filter((site) => site.thumbnail).length };
}

function printWire(label: string, wire: Awaited<ReturnType<typeof wireSizes>>): void {
  console.log(
    `  ${label.padEnd(11)}: ${wire.sites} sites (${wire.withThumbnail} with a thumbnail): uncompressed ${kib(wire.identity.body.length)}, gzip ${kib(wire.gzip.body.length)}, br ${kib(wire.br.body.length)}; a browser (${BROWSER_ACCEPT_ENCODING}) gets ${wire.browser.encoding}, ${kib(wire.browser.body.length)}`,
  );
}

interface WallMarks {
  first: number;
  all: number;
  painted: number;
}

/**
 * Watches the DOM from the first byte: when the first tile appears, when all tiles and the last
 * cohort heading are in, and the frame after that (painted). performance.now() counts from
 * navigation start. An init script (a string, added by the browser driver: not subject to the
 * page's CSP, and no tsx helpers in it).
 */
const watcher = (expected: number): string => `(() => {
  const marks = (window.__wall = {});
  const check = () => {
    if (marks.first === undefined && document.querySelector('.site-tile')) marks.first = performance.now();
    if (marks.all !== undefined) return;
    const headings = document.querySelectorAll('.cohort-block h3');
    const last = headings.length > 0 ? headings[headings.length - 1].textContent : '';
    if (document.querySelectorAll('.cohort-blocks .site-tile').length === ${expected} && last.startsWith('Projecten van Niet ingedeeld')) {
      marks.all = performance.now();
      requestAnimationFrame(() => setTimeout(() => { marks.painted = performance.now(); }, 0));
    }
  };
  new MutationObserver(check).observe(document, { childList: true, subtree: true });
})()`;

/**
 * Polls the watcher's marks with page.evaluate: waitForFunction would evaluate its predicate
 * from a string, which the app's CSP (script-src 'self', no unsafe-eval) rightly refuses. The
 * function has no named inner functions (tsx would wrap them in a `__name` helper the page lacks).
 * The marks are taken in the page, so the polling interval does not change them.
 */
async function wallMarks(page: Page): Promise<WallMarks> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const marks = await page
      .evaluate(() => {
        const wall = (window as unknown as { __wall?: Partial<WallMarks> }).__wall;
        return wall && wall.painted !== undefined ? (wall as WallMarks) : null;
      })
      .catch(() => null); // the document may still be replacing the one the navigation started from
    if (marks) return marks;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the wall did not render within 60 s');
}

interface PageTiming {
  dom: number;
  user?: { startTime: number; responseEnd: number };
  sites?: { startTime: number; responseEnd: number; transferSize: number; decodedBodySize: number };
  thumbnailRequests: number;
}

/** Navigation and resource timings of the loaded wall (no named inner functions: see wallMarks). */
async function pageTiming(page: Page): Promise<PageTiming> {
  return page.evaluate(() => {
    const resources = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
    const user = resources.find((item) => item.name.endsWith('/api/user'));
    const sites = resources.find((item) => item.name.endsWith('/api/sites'));
    const navigation = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
    return {
      dom: navigation ? navigation.domContentLoadedEventEnd : 0,
      user: user ? { startTime: user.startTime, responseEnd: user.responseEnd } : undefined,
      sites: sites
        ? { startTime: sites.startTime, responseEnd: sites.responseEnd, transferSize: sites.transferSize, decodedBodySize: sites.decodedBodySize }
        : undefined,
      thumbnailRequests: resources.filter((item) => item.name.includes('/misc/browserimg2/')).length,
    };
  });
}

async function measureWall(browser: Browser, url: string, expected: number, shot: string): Promise<void> {
  const renders: number[] = [];
  const painted: number[] = [];
  const firstTiles: number[] = [];
  const timings: PageTiming[] = [];
  for (let run = 0; run < BROWSER_RUNS; run += 1) {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    await context.addInitScript(watcher(expected));
    const page = await context.newPage();
    await page.goto(`${url}/websites`, { waitUntil: 'commit' });
    const marks = await wallMarks(page);
    timings.push(await pageTiming(page));
    firstTiles.push(marks.first);
    renders.push(marks.all);
    painted.push(marks.painted);
    if (run === 0) await page.screenshot({ path: path.join(root, `.tmp/shots/${shot}`) });
    await context.close();
  }
  const ms = (values: number[]) => `${median(values).toFixed(0)} ms`;
  const sites = timings.map((timing) => timing.sites);
  console.log(`/websites with ${expected} tiles in headless Chromium (1440×900, cold cache, app CSP, ${BROWSER_RUNS} runs)`);
  console.log(`  DOMContentLoaded           : median ${ms(timings.map((timing) => timing.dom))}`);
  console.log(`  GET /api/user              : median ${ms(timings.map((timing) => timing.user?.startTime ?? NaN))} → ${ms(timings.map((timing) => timing.user?.responseEnd ?? NaN))}`);
  console.log(
    `  GET /api/sites             : median ${ms(sites.map((entry) => entry?.startTime ?? NaN))} → ${ms(sites.map((entry) => entry?.responseEnd ?? NaN))}; ` +
      `${kib(median(sites.map((entry) => entry?.transferSize ?? NaN)))} transferred for ${kib(median(sites.map((entry) => entry?.decodedBodySize ?? NaN)))} of JSON`,
  );
  console.log(`  first tile in DOM          : median ${median(firstTiles).toFixed(0)} ms after navigation start`);
  console.log(`  all tiles + last cohort    : median ${median(renders).toFixed(0)} ms (runs: ${renders.map((value) => value.toFixed(0)).join(', ')})`);
  console.log(`  ... and painted (next frame): median ${median(painted).toFixed(0)} ms`);
  console.log(`  thumbnail requests         : median ${median(timings.map((timing) => timing.thumbnailRequests))} (lazy: only tiles near the viewport)`);
}

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
    const browserHeaders = { ...headers, 'accept-encoding': BROWSER_ACCEPT_ENCODING };
    const started = performance.now();
    const cold = await rawGet(`${app.url}/api/sites`, browserHeaders);
    const firstMs = performance.now() - started;
    const wire1500 = await wireSizes(`${app.url}/api/sites`, headers);

    // The floor: bare Koa answering the very bytes (and encoding) a browser gets.
    const barePort = await findFreePort();
    const bareApp = new Koa();
    bareApp.use((ctx) => {
      ctx.type = 'application/json';
      ctx.set('Content-Encoding', cold.encoding);
      ctx.body = cold.body;
    });
    bare = bareApp.listen(barePort, '127.0.0.1');
    const bareUrl = `http://127.0.0.1:${barePort}/`;

    await autocannon({ url: `${app.url}/api/sites`, connections: 10, duration: 2, headers: browserHeaders });
    await autocannon({ url: bareUrl, connections: 10, duration: 2, headers: browserHeaders });

    const real = await load(`${app.url}/api/sites`, browserHeaders);
    const baseline = await load(bareUrl, browserHeaders);
    const revalidated = await load(`${app.url}/api/sites`, { ...browserHeaders, 'if-none-match': cold.etag }, 304);

    console.log(`Data: ${userCount} users, ${siteCount} visible sites; first (cold) GET /api/sites ${firstMs.toFixed(0)} ms`);
    console.log('GET /api/sites on the wire');
    printWire('1,500 sites', wire1500);
    console.log(`GET /api/sites at 1,500 sites (anonymous visitor with a session cookie, Accept-Encoding ${BROWSER_ACCEPT_ENCODING}, ${CONNECTIONS} connections, ${DURATION_S} s)`);
    console.log(`  control plane : ${real.rps.toFixed(0)} req/s, p99 ${real.p99} ms (${real.total} requests)`);
    console.log(`  bare Koa      : ${baseline.rps.toFixed(0)} req/s, p99 ${baseline.p99} ms (${baseline.total} requests, the same ${cold.encoding} bytes)`);
    console.log(`  ratio         : ${(real.rps / baseline.rps).toFixed(3)} of bare throughput; p99 ${(real.p99 / Math.max(baseline.p99, 1)).toFixed(1)}x`);
    console.log(`  304 revalidate: ${revalidated.rps.toFixed(0)} req/s, p99 ${revalidated.p99} ms (If-None-Match, no body)`);

    const browser = await launchBrowser();
    try {
      await measureWall(browser, app.url, wire1500.sites, 'websites-bench-1500.png');
      await addSchoolSites(knex, 1500);
      const wire3000 = await wireSizes(`${app.url}/api/sites`, headers);
      console.log('GET /api/sites on the wire');
      printWire('3,000 sites', wire3000);
      await measureWall(browser, app.url, wire3000.sites, 'websites-bench-3000.png');
    } finally {
      await browser.close();
    }
  } finally {
    bare?.close();
    await knex.destroy();
    await app.stop();
    await database.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
