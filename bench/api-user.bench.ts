/**
 * GET /api/user, signed in, at 50 concurrent connections: the real control plane (session
 * lookup in PostgreSQL + user load + JSON) side by side with a bare Koa endpoint that returns
 * the same bytes. Prints req/s and p99 for both and their ratio.
 */
import Koa from 'koa';
import autocannon from 'autocannon';
import type { Server } from 'node:http';
import { startBenchDatabase } from './lib/bench-database.ts';
import { startControlPlane } from '../tests/support/control-plane.ts';
import { HttpSession } from '../tests/support/http-session.ts';
import { findFreePort } from '../tests/support/ports.ts';

const CONNECTIONS = 50;
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);

async function load(url: string, headers: Record<string, string>) {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, headers });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  }
  return { rps: result.requests.average, p99: result.latency.p99, total: result.requests.total };
}

async function main() {
  const database = await startBenchDatabase('devplein_bench');
  const databaseUrl = database.url;
  await database.knex.destroy();

  const app = await startControlPlane({ databaseUrl, env: { LOG_LEVEL: 'warn' } });
  let bare: Server | undefined;
  try {
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

    const real = await load(`${app.url}/api/user`, headers);
    const baseline = await load(`http://127.0.0.1:${barePort}/`, {});
    console.log(`GET /api/user (signed in, ${CONNECTIONS} connections, ${DURATION_S} s, ${bytes.length} bytes)`);
    console.log(`  control plane : ${real.rps.toFixed(0)} req/s, p99 ${real.p99} ms (${real.total} requests)`);
    console.log(`  bare Koa      : ${baseline.rps.toFixed(0)} req/s, p99 ${baseline.p99} ms (${baseline.total} requests)`);
    console.log(`  ratio         : ${(real.rps / baseline.rps).toFixed(3)} of bare throughput; p99 ${(real.p99 / Math.max(baseline.p99, 1)).toFixed(1)}x`);
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
