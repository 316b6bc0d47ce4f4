/**
 * Load: 200 signed-in sessions browse the websites wall, the levels page and the dockers page
 * for 60 s (BENCH_LOAD_DURATION_S) against a school-scale database (3,000 extra users, 1,500
 * sites), with the real host agent behind the dockers page. Each session loops: pick a page,
 * fetch what the browser fetches for it (the wall: /api/user, /api/sites and the first 12
 * thumbnails; levels: /api/user and the categories with the user's tiles; dockers: /api/user
 * and /api/user/dockers), then think 0.5–1.5 s. Prints requests, errors, p50/p99 per page and
 * overall, and the memory (RSS now and peak) of the control plane and the agent afterwards.
 * Rate limits are off here: 200 sign-ins from one address are what this bench does on purpose.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { makeTestCerts, startTestAgent, agentLinkEnv } from '../tests/support/agent.ts';
import { startControlPlane } from '../tests/support/control-plane.ts';
import { HttpSession } from '../tests/support/http-session.ts';
import { seedSchoolScale } from './lib/school-scale.ts';
import { startBenchDatabase } from './lib/bench-database.ts';

const SESSIONS = Number(process.env.BENCH_LOAD_SESSIONS ?? 200);
const DURATION_S = Number(process.env.BENCH_LOAD_DURATION_S ?? 60);
const THUMBNAILS_PER_WALL = 12;
type PageName = 'websites' | 'levels' | 'dockers';

interface Sample {
  page: PageName;
  ms: number;
  ok: boolean;
}

async function memoryOf(pid: number | undefined): Promise<{ rssMb: number; peakMb: number } | undefined> {
  if (!pid) return undefined;
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rssMb: Math.round(kb('VmRSS') / 1024), peakMb: Math.round(kb('VmHWM') / 1024) };
}

const percentile = (values: number[], p: number): number => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

async function main(): Promise<void> {
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
    const agent = await startTestAgent({ certDir: certs.dir, env: { AGENT_DOCKER_NETWORK: `devplein-bench-${process.pid}` } });
    cleanups.push(() => agent.stop());
    const app = await startControlPlane({
      databaseUrl,
      env: {
        LOG_LEVEL: 'warn',
        ...agentLinkEnv(agent.address, certs),
        RATE_LIMIT_SIGNIN_PER_MINUTE: '0',
        RATE_LIMIT_WRITES_PER_MINUTE: '0',
        THUMBNAIL_CRON: 'off',
        METRICS_LISTEN: '',
      },
    });
    cleanups.push(() => app.stop());
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
      const request = async (session: HttpSession, page: PageName, url: string): Promise<void> => {
        const started = performance.now();
        let ok = false;
        try {
          const response = url.startsWith('/api/') ? await session.api('GET', url) : await session.raw(url);
          await response.arrayBuffer();
          ok = response.status === 200 || response.status === 304;
          if (!ok) errors.set(`${url} ${response.status}`, (errors.get(`${url} ${response.status}`) ?? 0) + 1);
        } catch (error) {
          errors.set(`${url} ${(error as Error).message}`, (errors.get(`${url} ${(error as Error).message}`) ?? 0) + 1);
        }
        samples.push({ page, ms: performance.now() - started, ok });
      };
      const pages: Record<PageName, (session: HttpSession) => Promise<void>> = {
        websites: async (session) => {
          await request(session, 'websites', '/api/user');
          await request(session, 'websites', '/api/sites');
          await Promise.all(thumbnailNames.map((name) => request(session, 'websites', `/misc/browserimg2/small/${name}_s.png`)));
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
      const names = Object.keys(pages) as PageName[];
      const until = performance.now() + DURATION_S * 1000;
      const loadStarted = performance.now();
      await Promise.all(
        sessions.map(async (session, index) => {
          let turn = index;
          while (performance.now() < until) {
            await pages[names[turn++ % names.length]!](session);
            await new Promise((resolve) => setTimeout(resolve, 500 + Math.random() * 1000));
          }
        }),
      );
      const seconds = (performance.now() - loadStarted) / 1000;

      const failed = samples.filter((sample) => !sample.ok).length;
      console.log(`\n${sessions.length} sessions for ${seconds.toFixed(0)} s: ${samples.length} requests (${(samples.length / seconds).toFixed(0)} req/s), ${failed} errors`);
      for (const page of names) {
        const times = samples.filter((sample) => sample.page === page).map((sample) => sample.ms);
        console.log(`  ${page.padEnd(9)} ${String(times.length).padStart(7)} requests   p50 ${percentile(times, 50).toFixed(1)} ms   p99 ${percentile(times, 99).toFixed(1)} ms`);
      }
      const all = samples.map((sample) => sample.ms);
      console.log(`  ${'all'.padEnd(9)} ${String(all.length).padStart(7)} requests   p50 ${percentile(all, 50).toFixed(1)} ms   p99 ${percentile(all, 99).toFixed(1)} ms`);
      for (const [what, count] of errors) console.log(`  error: ${what} ×${count}`);
      const cp = await memoryOf(app.pid());
      const ag = await memoryOf(agent.pid());
      console.log(`\nmemory after the run: control plane RSS ${cp?.rssMb} MB (peak ${cp?.peakMb} MB), agent RSS ${ag?.rssMb} MB (peak ${ag?.peakMb} MB)`);
      if (failed > 0) process.exitCode = 1;
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}

await main();
