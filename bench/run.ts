/*
 * `npm run bench`: runs every bench/*.bench.ts one after another (never in parallel: they
 * measure throughput on a small machine) and prints their output. Arguments filter by file
 * name: `npm run bench -- api-user` runs only bench/api-user.bench.ts. Benchmarks are not part
 * of `npm test`.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { bin, formatDuration, heading, repoRoot, runCommand } from '../scripts/lib/run.ts';

const benchDir = join(repoRoot, 'bench');
const filters = process.argv.slice(2);
const files = readdirSync(benchDir)
  .filter((name) => name.endsWith('.bench.ts'))
  .filter((name) => filters.length === 0 || filters.some((filter) => name.includes(filter)))
  .sort();

if (files.length === 0) {
  console.log(filters.length === 0 ? 'No benchmarks yet (bench/*.bench.ts).' : `No benchmark matches ${filters.join(', ')}.`);
  process.exit(0);
}

const results: Array<{ file: string; code: number; ms: number }> = [];
for (const file of files) {
  console.log(heading(`bench/${file}`));
  const started = performance.now();
  const code = await runCommand(bin('tsx'), ['--conditions=development', join('bench', file)]);
  results.push({ file, code, ms: performance.now() - started });
}

console.log(heading('Benchmarks'));
for (const { file, code, ms } of results) {
  console.log(`  ${file.padEnd(Math.max(...files.map((name) => name.length)))}  ${code === 0 ? 'ok    ' : `failed (exit ${code})`}  ${formatDuration(ms)}`);
}
process.exit(results.some((result) => result.code !== 0) ? 1 : 0);
