/**
 * Load: 200 signed-in sessions browse the websites wall, the levels page and the dockers page
 * for 60 s (BENCH_LOAD_DURATION_S) against a school-scale database (3,000 extra users, 1,500
 * sites), with the real host agent behind the dockers page. Each session loops: pick a page,
 * fetch what the browser fetches for it (the wall: /api/user, /api/sites and the first 12
 * thumbnails, which its browser cache keeps as Cache-Control says; levels: /api/user and the categories with the user's tiles; dockers: /api/user
 * and /api/user/dockers), then think 0.5–1.5 s. Prints requests, errors, p50/p99 per page and
 * overall, and the memory (RSS now and peak) of the control plane and the agent afterwards.
 * Rate limits are off here: 200 sign-ins from one address are what this bench does on purpose.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import pg from 'pg';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { makeTestCerts, startTestAgent, agentLinkEnv } from '../tests/support/services/agent.ts';
import { startControlPlane } from '../tests/support/services/control-plane.ts';
import { HttpSession } from '../tests/support/clients/http-session.ts';
import { seedSchoolScale } from './lib/school-scale.ts';
import { startBenchDatabase } from './lib/bench-database.ts';
import { chromiumMemory, describeMemory, heapFromMetrics, processMemory } from './lib/process-memory.ts';
import { startBenchSchoolProvider } from './lib/school-provider.ts';
import { BrowserImageCache } from './lib/browser-image-cache.ts';
import { findFreePort } from '../tests/support/clients/ports.ts';
import { repoRoot } from '../scripts/lib/run.ts';

const SESSIONS = Number(process.env.BENCH_LOAD_SESSIONS ?? 200);
const DURATION_S = Number(process.env.BENCH_LOAD_DURATION_S ?? 60);
const THUMBNAILS_PER_WALL = 12;
type PageName = 'websites' | 'levels' | 'dockers';

interface Sample {
  page: PageName;
  /** The URL without its per-site part: /api/user, /api/sites, a thumbnail, … (the tail is split by it). */
  what: string;
  /** When the request started, ms after the load began. */
  at: number;
  ms: number;
  ok: boolean;
}

/** A thumbnail URL counts as one kind of request whatever the site. */
const requestKind = (url: string): string => (url.startsWith('/misc/browserimg2/') ? 'thumbnail' : url);

const COMPILED = process.env.BENCH_LOAD_TSX !== '1';
const PROFILE_DIR = process.env.BENCH_LOAD_PROFILE_DIR ? path.resolve(process.env.BENCH_LOAD_PROFILE_DIR) : undefined;
const SETTLE_MS = 3_000;
const BROWSER_CACHE = process.env.BENCH_LOAD_NO_BROWSER_CACHE !== '1';
/** The sessions' first pages spread over this many ms (the think time between pages is 0.5–1.5 s). */
const STAGGER_MS = Number(process.env.BENCH_LOAD_STAGGER_MS ?? 1500);

/** One line of memory figures for the control plane and the agent, Chromium apart. */
async function memoryLine(when: string, cp: { pid?: number; metricsPort: number }, agent: { pid?: number; metricsPort: number }): Promise<string> {
  const [cpMemory, cpHeap, agentMemory, agentHeap, chromium] = await Promise.all([
    processMemory(cp.pid),
    heapFromMetrics(`http://127.0.0.1:${cp.metricsPort}/metrics`),
    processMemory(agent.pid),
    heapFromMetrics(`http://127.0.0.1:${agent.metricsPort}/metrics`),
    chromiumMemory(agent.pid),
  ]);
  const heap = (reading: { heapUsedMb: number } | undefined) => (reading ? `, heapUsed ${reading.heapUsedMb} MB` : '');
  return `memory ${when}: control plane RSS ${describeMemory(cpMemory)}${heap(cpHeap)}; agent RSS ${describeMemory(agentMemory)}${heap(agentHeap)}; chromium apart: ${chromium.processes} processes, PSS ${chromium.pssMb} MB`;
}

/** Asks the control plane for a heap snapshot (--heapsnapshot-signal) and waits until it is written. */
async function heapSnapshot(pid: number | undefined, dir: string): Promise<void> {
  if (!pid) return;
  const before = (await readdir(dir)).filter((name) => name.endsWith('.heapsnapshot')).length;
  process.kill(pid, 'SIGUSR2');
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const files = (await readdir(dir)).filter((name) => name.endsWith('.heapsnapshot'));
    // Written in one go by V8; a new file that no longer grows is done.
    if (files.length > before) {
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const percentile = (values: number[], p: number): number => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

async function main(): Promise<void> {
  if (COMPILED) execFileSync('npm', ['run', '--silent', 'build:servers'], { cwd: repoRoot, stdio: 'inherit' });
  if (PROFILE_DIR) await mkdir(PROFILE_DIR, { recursive: true });
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'devplein-bench-load-'));
  const database = await startBenchDatabase('devplein_bench_load');
  const { url: databaseUrl, knex } = database;
  await seedSchoolScale(knex);
  // Students with a site (so their dockers page has something to ask the agent about) and a cohort.
  const emails = (
    await knex('users as u')
      .join('project_user as pu', 'pu.user_id', 'u.id')
      .where('u.email', 'like', 'bench.%')
      // With a cohort (all start with SD): the levels page is theirs (spec §6).
      .whereNotNull('u.group_id')
      .distinct('u.email')
      .orderBy('u.email')
      .limit(SESSIONS)
  ).map((row: { email: string }) => row.email);
  await knex.destroy();

  const cleanups: Array<() => Promise<unknown>> = [() => database.stop(), () => rm(workDir, { recursive: true, force: true })];
  try {
    const certs = await makeTestCerts(path.join(workDir, 'certs'));
    const provider = await startBenchSchoolProvider();
    cleanups.push(() => provider.close());
    const agentMetricsPort = await findFreePort();
    const agent = await startTestAgent({
      certDir: certs.dir,
      compiled: COMPILED,
      env: { NODE_ENV: 'production', AGENT_DOCKER_NETWORK: `devplein-bench-${process.pid}`, AGENT_METRICS_LISTEN: `127.0.0.1:${agentMetricsPort}` },
    });
    cleanups.push(() => agent.stop());
    const metricsPort = await findFreePort();
    const app = await startControlPlane({
      databaseUrl,
      compiled: COMPILED,
      nodeArgs: PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, '--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${PROFILE_DIR}`] : [],
      env: {
        NODE_ENV: 'production',
        ...provider.env,
        ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
        REALTIME_SECRET: 'bench-realtime-secret-0123456789',
        LOG_LEVEL: 'warn',
        ...agentLinkEnv(agent.address, certs),
        RATE_LIMIT_SIGNIN_PER_MINUTE: '0',
        RATE_LIMIT_WRITES_PER_MINUTE: '0',
        THUMBNAIL_CRON: 'off',
        METRICS_LISTEN: `127.0.0.1:${metricsPort}`,
      },
    });
    cleanups.push(() => app.stop());
      console.log(`servers: ${COMPILED ? 'compiled (npm run build:servers), plain node' : 'sources through tsx'}, NODE_ENV=production, PostgreSQL`);
      console.log(`database: ${emails.length} sessions of students with sites, 3,000 extra users, 1,500 sites`);
      const signInStarted = performance.now();
      const sessions: HttpSession[] = [];
      for (let start = 0; start < emails.length; start += 20) {
        const batch = await Promise.all(
          emails.slice(start, start + 20).map(async (email) => {
            const session = new HttpSession(app.url);
            const landing = await session.signIn(email);
            if (landing.status !== 200) throw new Error(`sign-in of ${email} answered ${landing.status}`);
            return session;
          }),
        );
        sessions.push(...batch);
      }
      console.log(`signed in ${sessions.length} sessions in ${Math.round(performance.now() - signInStarted)} ms`);
      const sites = (await (await sessions[0]!.api('GET', '/api/sites')).json()) as Array<{ name: string }>;
      // The bench's own sites have thumbnails (the demo seed's do not: their tiles fall back).
    const thumbnailNames = sites.filter((site) => site.name.startsWith('site-')).slice(0, THUMBNAILS_PER_WALL).map((site) => site.name);

      const samples: Sample[] = [];
      const errors = new Map<string, number>();
      // Each session's browser cache for the thumbnails (BENCH_LOAD_NO_BROWSER_CACHE=1: fetch every time).
      const imageCaches = new Map<HttpSession, BrowserImageCache>(BROWSER_CACHE ? sessions.map((session) => [session, new BrowserImageCache()]) : []);
      let thumbnailsFromCache = 0;
      let loadStarted = performance.now();
      const request = async (session: HttpSession, page: PageName, url: string, headers: Record<string, string> = {}): Promise<Response | undefined> => {
        const started = performance.now();
        let ok = false;
        let answer: Response | undefined;
        try {
          const response = url.startsWith('/api/') ? await session.api('GET', url) : await session.raw(url, { headers });
          await response.arrayBuffer();
          ok = response.status === 200 || response.status === 304;
          if (!ok) errors.set(`${url} ${response.status}`, (errors.get(`${url} ${response.status}`) ?? 0) + 1);
          answer = response;
        } catch (error) {
          errors.set(`${url} ${(error as Error).message}`, (errors.get(`${url} ${(error as Error).message}`) ?? 0) + 1);
        }
        samples.push({ page, what: requestKind(url), at: started - loadStarted, ms: performance.now() - started, ok });
        return answer;
      };
      const pages: Record<PageName, (session: HttpSession) => Promise<void>> = {
        websites: async (session) => {
          await request(session, 'websites', '/api/user');
          await request(session, 'websites', '/api/sites');
          const cache = imageCaches.get(session);
          await Promise.all(
            thumbnailNames.map(async (name) => {
              const url = `/misc/browserimg2/small/${name}_s.png`;
              if (!cache) return request(session, 'websites', url);
              if (cache.isFresh(url)) return void thumbnailsFromCache++;
              const response = await request(session, 'websites', url, cache.revalidationHeaders(url));
              if (response) cache.store(url, response);
            }),
          );
        },
        levels: async (session) => {
          await request(session, 'levels', '/api/user');
          await request(session, 'levels', '/api/level/categories/index');
        },
        dockers: async (session) => {
          await request(session, 'dockers', '/api/user');
          await request(session, 'dockers', '/api/user/dockers');
        },
      };
      // BENCH_LOAD_PAGES=levels,dockers: only those pages (to see what one page costs).
      const names = (Object.keys(pages) as PageName[]).filter((name) => !process.env.BENCH_LOAD_PAGES || process.env.BENCH_LOAD_PAGES.split(',').includes(name));
      const cpProcess = { pid: app.pid(), metricsPort };
      const agentProcess = { pid: agent.pid(), metricsPort: agentMetricsPort };
      // A little use before the load: a few sessions open each page once (not counted).
      for (const session of sessions.slice(0, 3)) for (const name of names) await pages[name](session);
      samples.length = 0;
      errors.clear();
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      console.log(await memoryLine('idle (after start, sign-ins and a little use)', cpProcess, agentProcess));
      if (PROFILE_DIR) await heapSnapshot(app.pid(), PROFILE_DIR);
      const until = performance.now() + DURATION_S * 1000;
      // What the database announced to the caches during the run (migrations 0011/0012), by kind:
      // a `w` or `u:` drops the wall, an `s:` a session.
      const notices = new Map<string, number>();
      const listener = new pg.Client({ connectionString: databaseUrl });
      await listener.connect();
      listener.on('notification', (message) => {
        const kind = (message.payload ?? '').split(':')[0]!;
        notices.set(kind, (notices.get(kind) ?? 0) + 1);
      });
      await listener.query('LISTEN devplein_identity');
      cleanups.push(() => listener.end());
      // The load generator shares the machine: its own event-loop delay is part of every time it measures.
      const generatorDelay = monitorEventLoopDelay({ resolution: 10 });
      generatorDelay.enable();
      loadStarted = performance.now();
      await Promise.all(
        sessions.map(async (session, index) => {
          let turn = index;
          // Each session begins after a think time, as it would after signing in; with 0 all 200 fire
          // their first page in the same millisecond (a herd no school produces: 67 walls, 800 cold tiles).
          if (STAGGER_MS > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * STAGGER_MS));
          while (performance.now() < until) {
            await pages[names[turn++ % names.length]!](session);
            await new Promise((resolve) => setTimeout(resolve, 500 + Math.random() * 1000));
          }
        }),
      );
      const seconds = (performance.now() - loadStarted) / 1000;
      generatorDelay.disable();

      const failed = samples.filter((sample) => !sample.ok).length;
      console.log(`\n${sessions.length} sessions for ${seconds.toFixed(0)} s (first pages spread over ${STAGGER_MS} ms, BENCH_LOAD_STAGGER_MS): ${samples.length} requests (${(samples.length / seconds).toFixed(0)} req/s), ${failed} errors`);
      for (const page of names) {
        const times = samples.filter((sample) => sample.page === page).map((sample) => sample.ms);
        console.log(`  ${page.padEnd(9)} ${String(times.length).padStart(7)} requests   p50 ${percentile(times, 50).toFixed(1)} ms   p99 ${percentile(times, 99).toFixed(1)} ms`);
        // Which requests of the page make its tail.
        for (const what of new Set(samples.filter((sample) => sample.page === page).map((sample) => sample.what))) {
          const ofKind = samples.filter((sample) => sample.page === page && sample.what === what).map((sample) => sample.ms);
          console.log(`    ${what.padEnd(30)} ${String(ofKind.length).padStart(7)}   p50 ${percentile(ofKind, 50).toFixed(1)} ms   p99 ${percentile(ofKind, 99).toFixed(1)} ms   max ${Math.max(...ofKind).toFixed(1)} ms`);
        }
      }
      // When in the run the slowest requests came (a burst at the start, or spread over the run).
      const slowest = [...samples].sort((a, b) => b.ms - a.ms).slice(0, Math.ceil(samples.length / 100));
      const byTenSeconds = new Map<number, number>();
      for (const sample of slowest) byTenSeconds.set(Math.floor(sample.at / 10_000) * 10, (byTenSeconds.get(Math.floor(sample.at / 10_000) * 10) ?? 0) + 1);
      console.log(`  the slowest 1 % by start time (s: count): ${[...byTenSeconds].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}–${s + 10}: ${n}`).join(', ')}`);
      const all = samples.map((sample) => sample.ms);
      console.log(`  ${'all'.padEnd(9)} ${String(all.length).padStart(7)} requests   p50 ${percentile(all, 50).toFixed(1)} ms   p99 ${percentile(all, 99).toFixed(1)} ms`);
      console.log(`  thumbnails: ${BROWSER_CACHE ? `${thumbnailsFromCache} taken from the sessions' browser caches (no request)` : 'browser cache off: every tile fetched'}`);
      for (const [what, count] of errors) console.log(`  error: ${what} ×${count}`);
      console.log(`  notices to the caches during the run: ${[...notices].map(([kind, count]) => `${kind} ×${count}`).join(', ') || 'none'}`);
      const delayMs = (ns: number) => (ns / 1e6).toFixed(1);
      console.log(`  the load generator's own event-loop delay: p50 ${delayMs(generatorDelay.percentile(50))} ms, p99 ${delayMs(generatorDelay.percentile(99))} ms, max ${delayMs(generatorDelay.max)} ms`);
      console.log(`\n${await memoryLine('after the run', cpProcess, agentProcess)}`);
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS * 3));
      console.log(await memoryLine(`${(SETTLE_MS * 3) / 1000} s after the run`, cpProcess, agentProcess));
      if (PROFILE_DIR) {
        await heapSnapshot(app.pid(), PROFILE_DIR);
        console.log(`profiles and heap snapshots in ${PROFILE_DIR}`);
      }
      if (failed > 0) process.exitCode = 1;
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}

await main();
