/**
 * The teachers' overview's table (issue 22): what 7 days of host samples cost in PostgreSQL.
 * Fills host_samples (migration 0016) as the sampler does — one row per dev server per minute,
 * whatever the number of containers — for 7 days of one dev server running 100 containers (the
 * issue's figure; the counts by state are a jsonb of a few keys, not a row per container), then
 * prints the table's size with its indexes (pg_total_relation_size) per row and for the fleet,
 * and how long the overview's 24-hour read of one server takes (GET /api/admin/overview/hosts).
 */
import { performance } from 'node:perf_hooks';
import { hostSamplesBetween } from '../control-plane/src/queries/overview.ts';
import { startBenchDatabase } from './lib/bench-database.ts';

const MINUTES = 7 * 24 * 60;
const HOSTS = Number(process.env.BENCH_HOSTS ?? 1);

const database = await startBenchDatabase('bench_host_samples');
try {
  const { knex } = database;
  const end = Math.floor(Date.now() / 60_000) * 60_000;
  for (let host = 1; host <= HOSTS; host += 1) {
    const rows = [];
    for (let minute = 0; minute < MINUTES; minute += 1) {
      rows.push({
        host: `dev${host}`,
        sampled_at: new Date(end - minute * 60_000),
        cpu_cores: 8,
        load_1m: Math.random() * 8,
        memory_total_bytes: 64e9,
        memory_available_bytes: Math.round(20e9 + Math.random() * 20e9),
        disks: JSON.stringify([
          { name: 'docker', totalBytes: 500e9, availableBytes: Math.round(200e9 + Math.random() * 1e9) },
          { name: 'agent', totalBytes: 500e9, availableBytes: Math.round(200e9 + Math.random() * 1e9) },
        ]),
        containers: JSON.stringify({ running: 80, exited: 17, paused: 2, created: 1, restarting: 0 }),
        managed_containers: JSON.stringify({ running: 78, exited: 17, paused: 2, created: 1 }),
      });
    }
    for (let start = 0; start < rows.length; start += 1000) await knex('host_samples').insert(rows.slice(start, start + 1000));
  }
  await knex.raw('vacuum analyze host_samples');
  const size = (await knex.raw("select pg_total_relation_size('host_samples')::bigint as total, pg_relation_size('host_samples')::bigint as heap")) as { rows: Array<{ total: number; heap: number }> };
  const total = Number(size.rows[0]?.total);
  const heap = Number(size.rows[0]?.heap);
  const rowCount = MINUTES * HOSTS;
  console.log(`host_samples: ${rowCount} rows (${HOSTS} dev server(s) × 7 days × 1,440 a day), 100 containers each`);
  console.log(`  table ${(heap / 1e6).toFixed(2)} MB, with indexes ${(total / 1e6).toFixed(2)} MB = ${Math.round(total / rowCount)} bytes per row`);
  console.log(`  per dev server after 7 days: ${(total / HOSTS / 1e6).toFixed(2)} MB`);

  const times: number[] = [];
  for (let run = 0; run < 20; run += 1) {
    const started = performance.now();
    await hostSamplesBetween(knex, ['dev1'], new Date(end - 24 * 3_600_000), new Date(end));
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  console.log(`  24-hour read of one dev server (1,440 rows): median ${times[10]?.toFixed(1)} ms, max ${times.at(-1)?.toFixed(1)} ms (20 runs)`);
  await knex.destroy();
} finally {
  await database.stop();
}
