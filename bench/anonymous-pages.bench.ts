/**
 * 10,000 anonymous page views (GET /, no cookies: every one a new visitor) against the real
 * control plane on PostgreSQL, at 20 concurrent connections. Prints the sessions table's row
 * count before and after (an anonymous page view must write no session row; the CSRF token it
 * gets is stateless) and the throughput. Fails when a row was added or an answer was not 200.
 */
import autocannon from 'autocannon';
import { startControlPlane } from '../tests/support/services/control-plane.ts';
import { startBenchDatabase } from './lib/bench-database.ts';

const PAGE_VIEWS = Number(process.env.BENCH_PAGE_VIEWS ?? 10_000);
const CONNECTIONS = 20;

async function main() {
  const database = await startBenchDatabase('devplein_bench_pages');
  const { url: databaseUrl, knex } = database;
  const app = await startControlPlane({ databaseUrl, env: { LOG_LEVEL: 'warn' } });
  try {
    const sessions = async (): Promise<number> => Number((await knex('sessions').count<{ n: string }[]>({ n: '*' }))[0]?.n);
    // Warm up (template read, JIT), then count.
    await autocannon({ url: `${app.url}/`, connections: 5, amount: 200 });
    const before = await sessions();
    const result = await autocannon({ url: `${app.url}/`, connections: CONNECTIONS, amount: PAGE_VIEWS });
    const after = await sessions();
    console.log(`GET / anonymous, no cookies: ${result.requests.total} page views, ${CONNECTIONS} connections`);
    console.log(`  answers     : ${result['2xx']} 2xx, ${result.non2xx} other, ${result.errors} errors`);
    console.log(`  throughput  : ${result.requests.average.toFixed(0)} req/s (p99 ${result.latency.p99} ms, ${(result.duration).toFixed(1)} s)`);
    console.log(`  sessions    : ${before} rows before, ${after} after (${after - before >= 0 ? '+' : ''}${after - before})`);
    if (after !== before || result.non2xx > 0 || result.errors > 0 || result.requests.total < PAGE_VIEWS) {
      throw new Error('anonymous page views wrote session rows or did not all answer 200');
    }
  } finally {
    await app.stop();
    await knex.destroy();
    await database.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
