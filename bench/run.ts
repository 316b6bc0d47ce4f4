/*
 * `npm run bench`: runs every bench/*.bench.ts one after another (never in parallel: they
 * measure throughput on a small machine) and prints their output. Arguments filter by file
 * name: `npm run bench -- api-user` runs only bench/api-user.bench.ts. Benchmarks are not part
 * of `npm test`.
 *
 * Like `npm test`, it runs on the release bundle's Node (24) with that Node first on PATH, so
 * every bench and the servers it starts run there; and first it builds what the benches run when
 * it is missing or stale: native addons for that Node, web/dist (the control plane serves it: a
 * fresh clone's sign-in answered 503 without it) and the compiled servers.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { rebuildNativeAddonsForThisNode } from '../scripts/lib/native-addons.ts';
import { bin, formatDuration, heading, repoRoot, runCommand } from '../scripts/lib/run.ts';
import { runOnServerNode } from '../scripts/lib/server-node.ts';
import { buildServersIfStale, buildWebIfStale } from '../scripts/lib/stale-builds.ts';

await runOnServerNode();

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

console.log(heading(`Preparing (Node ${process.versions.node})`));
await rebuildNativeAddonsForThisNode(repoRoot);
if (!(await buildWebIfStale())) {
  console.error('building the web app failed');
  process.exit(1);
}
await buildServersIfStale();

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
