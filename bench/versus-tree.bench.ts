/**
 * GET /api/sites against another checkout of devplein, both control planes on one database and
 * loaded in turns (ABAB…, the order swapped each round), so what else the machine does hits both
 * alike: full answers (brotli, as a browser gets them) and 304 revalidations. For "within 10 % of
 * before": check out the old commit beside this one (`git worktree add ../before <commit>`,
 * `npm ci` there) and run
 *
 *     BENCH_VERSUS_TREE=../before npm run bench -- versus-tree
 *
 * Both run as the sites bench runs them (tsx, development), or compiled in production with
 * BENCH_VERSUS_COMPILED=1 (run `npm run build:servers` in both trees first). Without BENCH_VERSUS_TREE it says so
 * and measures nothing. BENCH_VERSUS_ROUNDS (6) and BENCH_VERSUS_SECONDS (5) per load.
 */
import path from 'node:path';
import autocannon from 'autocannon';
import { seedSchoolScale } from './lib/school-scale.ts';
import { startBenchDatabase } from './lib/bench-database.ts';
import { startControlPlane, type RunningControlPlane } from '../tests/support/services/control-plane.ts';
import { HttpSession } from '../tests/support/clients/http-session.ts';
import { repoRoot } from '../scripts/lib/run.ts';
import { startBenchSchoolProvider } from './lib/school-provider.ts';

const OTHER = process.env.BENCH_VERSUS_TREE;
const ROUNDS = Number(process.env.BENCH_VERSUS_ROUNDS ?? 6);
const SECONDS = Number(process.env.BENCH_VERSUS_SECONDS ?? 5);
const CONNECTIONS = 50;
/** BENCH_VERSUS_COMPILED=1: both compiled and in production, as a school runs them (each tree's `npm run build:servers` first). */
const COMPILED = process.env.BENCH_VERSUS_COMPILED === '1';

interface Side {
  name: string;
  app: RunningControlPlane;
  headers: Record<string, string>;
  etag: string;
  full: number[];
  fresh: number[];
}

/** An anonymous visitor of `app` with its cookies, after one warm-up. */
async function sideOf(name: string, app: RunningControlPlane): Promise<Side> {
  const visitor = new HttpSession(app.url);
  await visitor.primeCsrf();
  const cookie = ['devplein_session', 'devplein_session.sig', 'XSRF-TOKEN'].map((c) => `${c}=${visitor.cookie(c) ?? ''}`).join('; ');
  const headers = { cookie, 'x-requested-with': 'XMLHttpRequest', accept: 'application/json', 'accept-encoding': 'gzip, deflate, br, zstd' };
  const first = await fetch(`${app.url}/api/sites`, { headers });
  await first.arrayBuffer();
  await autocannon({ url: `${app.url}/api/sites`, connections: 10, duration: 2, headers });
  return { name, app, headers, etag: first.headers.get('etag') ?? '', full: [], fresh: [] };
}

async function rps(url: string, headers: Record<string, string>, expectStatus: number): Promise<number> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, headers });
  const expected = expectStatus === 304 ? result.non2xx : result['2xx'];
  if (result.errors > 0 || expected !== result.requests.total) throw new Error(`${url}: ${result.requests.total - expected} answers other than ${expectStatus}, ${result.errors} errors`);
  return result.requests.average;
}

const mean = (values: number[]): number => values.reduce((sum, value) => sum + value, 0) / values.length;

if (!OTHER) {
  console.log('versus-tree: set BENCH_VERSUS_TREE to another checkout (with npm ci done) to compare GET /api/sites with it; nothing measured.');
} else {
  const otherRoot = path.resolve(OTHER);
  const { startControlPlane: startOther } = (await import(path.join(otherRoot, 'tests/support/services/control-plane.ts'))) as { startControlPlane: typeof startControlPlane };
  const database = await startBenchDatabase('devplein_bench_versus');
  await seedSchoolScale(database.knex);
  const provider = COMPILED ? await startBenchSchoolProvider() : undefined;
  const env = {
    LOG_LEVEL: 'warn',
    WEB_DIST: path.join(repoRoot, 'web/dist'),
    ...(COMPILED ? { NODE_ENV: 'production', ...provider?.env, ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'), REALTIME_SECRET: 'bench-realtime-secret-0123456789' } : {}),
  };
  const other = await startOther({ databaseUrl: database.url, compiled: COMPILED, env });
  const here = await startControlPlane({ databaseUrl: database.url, compiled: COMPILED, env });
  try {
    const sides = [await sideOf(`other (${OTHER})`, other), await sideOf('this tree', here)];
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        const url = `${side.app.url}/api/sites`;
        side.full.push(await rps(url, side.headers, 200));
        side.fresh.push(await rps(url, { ...side.headers, 'if-none-match': side.etag }, 304));
      }
    }
    console.log(`GET /api/sites, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s per load, in turns`);
    for (const side of sides) {
      const list = (values: number[]) => `${values.map((value) => value.toFixed(0)).join(' / ')} (mean ${mean(values).toFixed(0)})`;
      console.log(`  ${side.name}: full ${list(side.full)} req/s; 304 ${list(side.fresh)} req/s`);
    }
    const [before, after] = sides as [Side, Side];
    console.log(`  this tree / other: full ${(mean(after.full) / mean(before.full)).toFixed(3)}, 304 ${(mean(after.fresh) / mean(before.fresh)).toFixed(3)}`);
  } finally {
    await other.stop();
    await here.stop();
    await database.stop();
    await provider?.close();
  }
}
