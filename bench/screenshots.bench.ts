/**
 * Site thumbnails per minute on this machine: 40 local sites behind a real Caddy, each a
 * node:http server that answers after a realistic delay (~300 ms, like a PHP page with a
 * database query) with a small HTML page. Captured three ways with the agent's own driver
 * (ChromiumScreenshotter, in this process, same flags, same capture code):
 *   1. warm pool   — one long-lived browser, 4 tabs kept warm across captures (the agent's
 *                    defaults); browser started and one warm-up capture done before the clock starts;
 *   2. warm browser, new tab per capture (capturesPerTab = 1): what the pool did before tabs
 *                    were reused, to show what reuse buys;
 *   3. cold, 1 at a time — a new browser per site (recycleAfter = 1), one site after another;
 *   4. cold, 4 at a time — a new browser per site, 4 sites at once (same concurrency as 1).
 * Prints thumbnails/minute for each, the warm/cold ratios (goal ≥ 3×), and the peak memory
 * during each run: this process's RSS plus every Chromium process's RSS, sampled from /proc
 * every 200 ms. `BENCH_SITES` and `BENCH_SITE_DELAY_MS` change the defaults.
 */
import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { ChromiumScreenshotter } from '../host-agent/src/drivers/browser/chromium-screenshotter.ts';
import { readPngSize } from '../host-agent/src/drivers/browser/png.ts';
import { commandLine, processTree, proportionalBytes, residentBytes } from '../host-agent/src/drivers/browser/processes.ts';
import { CaddyProxyDriver } from '../host-agent/src/drivers/proxy/caddy-proxy-driver.ts';
import { startCaddy, type TestCaddy } from '../tests/support/services/caddy.ts';

const SITES = Number(process.env.BENCH_SITES ?? 40);
const DELAY_MS = Number(process.env.BENCH_SITE_DELAY_MS ?? 300);
const SITE_DOMAIN = 'bench-shots.test';
const VIEWPORT = { width: 1280, height: 800 };
const THUMBNAIL_WIDTH = 320;
const TIMEOUT_MS = 15_000;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const MB = 1024 * 1024;

const palette = ['#1f7a4d', '#e67e22', '#2c3e50', '#8e44ad', '#c0392b', '#16a085', '#d35400', '#2980b9'];

/** A small student-like page: a header, a few paragraphs, a list, inline CSS. */
function sitePage(index: number): string {
  const colour = palette[index % palette.length];
  return `<!doctype html><html lang="nl"><head><meta charset="utf-8"><title>Project ${index}</title>
<style>body{margin:0;font-family:sans-serif;background:#fafafa}header{background:${colour};color:#fff;padding:32px}
main{padding:24px;max-width:900px}li{margin:4px 0}</style></head><body>
<header><h1>Portfolio ${index}</h1><p>Webdevelopment, leerjaar 2</p></header>
<main><h2>Over mij</h2><p>${'Ik bouw websites met HTML, CSS, PHP en een beetje JavaScript. '.repeat(6)}</p>
<ul>${Array.from({ length: 8 }, (_, item) => `<li>Opdracht ${item + 1}: ${['Landingspagina', 'Formulier', 'Database', 'Login'][item % 4]}</li>`).join('')}</ul>
</main></body></html>`;
}

interface Site {
  domain: string;
  server: http.Server;
}

async function startSites(caddy: TestCaddy): Promise<Site[]> {
  const proxy = new CaddyProxyDriver({ adminUrl: caddy.adminUrl, server: caddy.serverName, listen: `127.0.0.1:${caddy.httpPort}` });
  const sites: Site[] = [];
  for (let index = 0; index < SITES; index += 1) {
    const body = sitePage(index);
    const server = http.createServer((_request, response) => {
      // 250–350 ms, so the sites do not all answer in lock-step.
      const delay = DELAY_MS + Math.round((Math.random() - 0.5) * DELAY_MS * 0.33);
      setTimeout(() => {
        response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        response.end(body);
      }, delay);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const domain = `site-${index}.${SITE_DOMAIN}`;
    await proxy.upsertRoute({ domain, upstream: `127.0.0.1:${(server.address() as AddressInfo).port}`, projectId: index + 1 });
    sites.push({ domain, server });
  }
  return sites;
}

/** Peak RSS of this process and of the Chromium processes below it, sampled every 200 ms. */
class MemorySampler {
  peakNode = 0;
  peakChromium = 0;
  peakTotal = 0;
  /** Chromium's proportional set size (shared pages counted once overall): the RSS sum overcounts them. */
  peakChromiumPss = 0;
  private timer: NodeJS.Timeout | undefined;

  start(): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), 200);
  }

  stop(): void {
    clearInterval(this.timer);
    this.sample();
  }

  private sample(): void {
    const node = process.memoryUsage().rss;
    const browsers = processTree(process.pid).filter((pid) => pid !== process.pid && (commandLine(pid)?.[0] ?? '').includes('chromium'));
    const chromium = browsers.reduce((sum, pid) => sum + residentBytes(pid), 0);
    this.peakChromiumPss = Math.max(this.peakChromiumPss, browsers.reduce((sum, pid) => sum + proportionalBytes(pid), 0));
    this.peakNode = Math.max(this.peakNode, node);
    this.peakChromium = Math.max(this.peakChromium, chromium);
    this.peakTotal = Math.max(this.peakTotal, node + chromium);
  }
}

interface RunResult {
  name: string;
  seconds: number;
  perMinute: number;
  failures: string[];
  memory: MemorySampler;
  launches: number;
  /** Median time of one capture, from getting a page to the result. */
  medianCaptureMs: number;
}

async function run(
  name: string,
  sites: Site[],
  caddy: TestCaddy,
  options: { pages: number; recycleAfter: number; warm: boolean; capturesPerTab?: number },
): Promise<RunResult> {
  const screenshotter = new ChromiumScreenshotter({
    chromiumPath: CHROMIUM,
    proxy: `127.0.0.1:${caddy.httpPort}`,
    siteDomain: SITE_DOMAIN,
    pages: options.pages,
    recycleAfter: options.recycleAfter,
    ...(options.capturesPerTab ? { capturesPerTab: options.capturesPerTab } : {}),
    logger: pino({ level: 'warn' }),
  });
  const capture = (domain: string) => screenshotter.capture({ domain, viewport: VIEWPORT, thumbnailWidth: THUMBNAIL_WIDTH, timeoutMs: TIMEOUT_MS });
  try {
    if (options.warm) {
      const warmUp = await capture(sites[0]!.domain);
      if (warmUp.outcome !== 'captured') throw new Error(`warm-up capture failed: ${warmUp.reason}`);
    }
    const launchesBefore = screenshotter.launchCount;
    const memory = new MemorySampler();
    memory.start();
    const started = performance.now();
    const results = await Promise.all(sites.map((site) => capture(site.domain)));
    const seconds = (performance.now() - started) / 1000;
    memory.stop();
    const failures = results.flatMap((result, index) => {
      if (result.outcome !== 'captured') return [`${sites[index]!.domain}: ${result.outcome} ${result.reason}`];
      const size = readPngSize(result.thumbnailPng!);
      return size.width === THUMBNAIL_WIDTH ? [] : [`${sites[index]!.domain}: thumbnail ${size.width}×${size.height}`];
    });
    const durations = results.map((result) => result.durationMs).sort((a, b) => a - b);
    return {
      name,
      seconds,
      perMinute: (sites.length / seconds) * 60,
      failures,
      memory,
      launches: screenshotter.launchCount - launchesBefore,
      medianCaptureMs: durations[Math.floor(durations.length / 2)] ?? 0,
    };
  } finally {
    await screenshotter.close();
  }
}

const mb = (bytes: number) => `${Math.round(bytes / MB)} MB`;

async function main(): Promise<void> {
  const caddy = await startCaddy();
  const sites = await startSites(caddy);
  try {
    const load = () => os.loadavg().map((value) => value.toFixed(1)).join(' ');
    console.log(`${os.cpus().length} cores, load average ${load()} at the start`);
    console.log(`${SITES} sites behind Caddy, each answering after ~${DELAY_MS} ms; viewport ${VIEWPORT.width}×${VIEWPORT.height}, thumbnail ${THUMBNAIL_WIDTH} px wide`);
    const warm = await run('warm pool, 4 tabs', sites, caddy, { pages: 4, recycleAfter: 200, warm: true });
    const warmNewTabs = await run('warm browser, new tab per capture', sites, caddy, { pages: 4, recycleAfter: 200, warm: true, capturesPerTab: 1 });
    const coldSequential = await run('new browser per site, 1 at a time', sites, caddy, { pages: 1, recycleAfter: 1, warm: false });
    const coldParallel = await run('new browser per site, 4 at a time', sites, caddy, { pages: 4, recycleAfter: 1, warm: false });

    const rows = [warm, warmNewTabs, coldSequential, coldParallel];
    console.log(`load average ${load()} at the end (other work on this machine skews every figure)`);
    console.log('');
    console.log(
      `  ${'run'.padEnd(36)} ${'time'.padStart(8)} ${'thumbs/min'.padStart(11)} ${'median 1'.padStart(9)} ${'browsers'.padStart(9)} ` +
        `${'node RSS'.padStart(9)} ${'chromium RSS'.padStart(13)} ${'total RSS'.padStart(10)} ${'chromium PSS'.padStart(13)}`,
    );
    for (const row of rows) {
      console.log(
        `  ${row.name.padEnd(36)} ${`${row.seconds.toFixed(1)} s`.padStart(8)} ${row.perMinute.toFixed(0).padStart(11)} ${`${row.medianCaptureMs} ms`.padStart(9)} ` +
          `${String(row.launches).padStart(9)} ${mb(row.memory.peakNode).padStart(9)} ${mb(row.memory.peakChromium).padStart(13)} ` +
          `${mb(row.memory.peakTotal).padStart(10)} ${mb(row.memory.peakChromiumPss).padStart(13)}`,
      );
    }
    console.log('  (memory columns are peaks over the run, sampled every 200 ms; RSS sums count shared pages once per process, PSS shares them out)');
    console.log('');
    const ratioSequential = warm.perMinute / coldSequential.perMinute;
    const ratioParallel = warm.perMinute / coldParallel.perMinute;
    console.log(`  warm pool vs new browser per site, 1 at a time: ${ratioSequential.toFixed(1)}× (goal ≥ 3×) ${ratioSequential >= 3 ? 'ok' : 'BELOW GOAL'}`);
    console.log(`  warm pool vs new browser per site, 4 at a time: ${ratioParallel.toFixed(1)}× (same concurrency)`);
    console.log(`  warm tabs vs a new tab per capture in the same warm browser: ${(warm.perMinute / warmNewTabs.perMinute).toFixed(1)}×`);
    console.log(
      `  agent peak memory during the warm-pool run: ${mb(warm.memory.peakTotal)} RSS (node ${mb(warm.memory.peakNode)} + Chromium ${mb(warm.memory.peakChromium)}); ` +
        `Chromium PSS ${mb(warm.memory.peakChromiumPss)}`,
    );
    const failures = rows.flatMap((row) => row.failures.map((failure) => `${row.name}: ${failure}`));
    if (failures.length > 0) {
      console.error(`\n${failures.length} captures did not succeed:\n${failures.slice(0, 20).join('\n')}`);
      process.exitCode = 1;
    }
  } finally {
    for (const site of sites) site.server.close();
    await caddy.stop();
  }
}

await main();
