/**
 * GET /api/user, signed in, at 50 concurrent connections: the real control plane (session
 * lookup in PostgreSQL + user load + JSON) side by side with a bare Koa endpoint that returns
 * the same bytes. Prints req/s and p99 for both and their ratio.
 *
 * The control plane runs as a school runs it: compiled (`npm run build:servers`), plain node,
 * NODE_ENV=production. BENCH_API_USER_TSX=1 runs the sources through tsx in development instead
 * (what `npm start` runs), for comparison. BENCH_API_USER_PROFILE_DIR=… writes the control plane's
 * --cpu-prof profile there (read it with bench/lib/cpu-profile-summary.ts).
 */
import { execFileSync } from 'node:child_process';
import Koa from 'koa';
import autocannon from 'autocannon';
import type { Server } from 'node:http';
import path from 'node:path';
import { startBenchDatabase } from './lib/bench-database.ts';
import { startControlPlane } from '../tests/support/services/control-plane.ts';
import { HttpSession } from '../tests/support/clients/http-session.ts';
import { findFreePort } from '../tests/support/clients/ports.ts';
import { repoRoot } from '../scripts/lib/run.ts';
import { startBenchSchoolProvider } from './lib/school-provider.ts';

const CONNECTIONS = 50;
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
/**
 * The two sides take turns in this many rounds (DURATION_S / ROUNDS seconds each), so a change
 * in what else the machine does hits both alike; p99 is the worst round's.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const COMPILED = process.env.BENCH_API_USER_TSX !== '1';
const PROFILE_DIR = process.env.BENCH_API_USER_PROFILE_DIR ? path.resolve(process.env.BENCH_API_USER_PROFILE_DIR) : undefined;

interface Figures {
  rps: number;
  p99: number;
  total: number;
}

async function load(url: string, headers: Record<string, string>, seconds: number): Promise<Figures> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds, headers });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  }
  return { rps: result.requests.average, p99: result.latency.p99, total: result.requests.total };
}

/** Sums the rounds: requests over the whole time, the worst p99. */
function combine(rounds: Figures[], seconds: number): Figures {
  const total = rounds.reduce((sum, round) => sum + round.total, 0);
  return { rps: total / seconds, p99: Math.max(...rounds.map((round) => round.p99)), total };
}

async function main() {
  const database = await startBenchDatabase('devplein_bench');
  const databaseUrl = database.url;
  await database.knex.destroy();

  if (COMPILED) execFileSync('npm', ['run', '--silent', 'build:servers'], { cwd: repoRoot, stdio: 'inherit' });
  // Production has no development sign-in: the bench's own school provider signs in.
  const provider = COMPILED ? await startBenchSchoolProvider() : undefined;
  const app = await startControlPlane({
    databaseUrl,
    compiled: COMPILED,
    nodeArgs: PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [],
    env: COMPILED
      ? {
          NODE_ENV: 'production',
          ...provider?.env,
          ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
          REALTIME_SECRET: 'bench-realtime-secret-0123456789',
          LOG_LEVEL: 'warn',
          RATE_LIMIT_SIGNIN_PER_MINUTE: '0',
        }
      : { LOG_LEVEL: 'warn' },
  });
  let bare: Server | undefined;
  try {
    console.log(`control plane: ${COMPILED ? 'compiled, plain node, NODE_ENV=production' : 'sources through tsx, development (BENCH_API_USER_TSX=1)'}`);
    const session = new HttpSession(app.url);
    await session.signIn('ontwikkelaar@devplein.test');
    const cookie = ['devplein_session', 'devplein_session.sig', 'XSRF-TOKEN']
      .map((name) => `${name}=${session.cookie(name) ?? ''}`)
      .join('; ');
    const headers = { cookie, 'x-requested-with': 'XMLHttpRequest', accept: 'application/json' };
    const sample = await fetch(`${app.url}/api/user`, { headers });
    if (sample.status !== 200) throw new Error(`signed-in GET /api/user answered ${sample.status}`);
    const bytes = Buffer.from(await sample.arrayBuffer());

    const barePort = await findFreePort();
    const bareApp = new Koa();
    bareApp.use((ctx) => {
      ctx.type = 'application/json';
      ctx.body = bytes;
    });
    bare = bareApp.listen(barePort, '127.0.0.1');

    // Warm both up before measuring.
    await autocannon({ url: `${app.url}/api/user`, connections: 10, duration: 2, headers });
    await autocannon({ url: `http://127.0.0.1:${barePort}/`, connections: 10, duration: 2 });

    const roundSeconds = Math.max(1, Math.round(DURATION_S / ROUNDS));
    const realRounds: Figures[] = [];
    const bareRounds: Figures[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      realRounds.push(await load(`${app.url}/api/user`, headers, roundSeconds));
      bareRounds.push(await load(`http://127.0.0.1:${barePort}/`, {}, roundSeconds));
    }
    const real = combine(realRounds, roundSeconds * ROUNDS);
    const baseline = combine(bareRounds, roundSeconds * ROUNDS);
    console.log(`GET /api/user (signed in, ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${roundSeconds} s, ${bytes.length} bytes)`);
    console.log(`  control plane : ${real.rps.toFixed(0)} req/s, p99 ${real.p99} ms (${real.total} requests)`);
    console.log(`  bare Koa      : ${baseline.rps.toFixed(0)} req/s, p99 ${baseline.p99} ms (${baseline.total} requests)`);
    console.log(`  ratio         : ${(real.rps / baseline.rps).toFixed(3)} of bare throughput; p99 ${(real.p99 / Math.max(baseline.p99, 1)).toFixed(1)}x`);
  } finally {
    bare?.close();
    await app.stop();
    await provider?.close();
    await database.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
