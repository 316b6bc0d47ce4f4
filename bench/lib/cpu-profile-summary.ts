/**
 * `npx tsx bench/lib/cpu-profile-summary.ts FILE.cpuprofile [top]`: the functions with the most
 * self time in a --cpu-prof profile, and the self time per package (node_modules/NAME) or file
 * of our own, so a load run's profile reads in a few lines.
 */
import { readFile } from 'node:fs/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const file = process.argv[2];
const top = Number(process.argv[3] ?? 25);
if (!file) throw new Error('usage: cpu-profile-summary.ts FILE.cpuprofile [top]');
const profile = JSON.parse(await readFile(file, 'utf8')) as Profile;

// Self time per node: each sample's time delta goes to the node it hit.
const selfUs = new Map<number, number>();
profile.samples.forEach((id, index) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));
const totalUs = [...selfUs.values()].reduce((sum, us) => sum + us, 0);

/** node_modules/<package> (scoped too), our own file relative to the repository, or node's own. */
function owner(url: string): string {
  if (!url) return '(native/V8)';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1]!;
  if (url.startsWith('node:')) return url;
  return url.replace(/^file:\/\//, '').replace(/^.*?\/(control-plane|host-agent|server-kit|contract)\//, '$1/');
}

const byFunction = new Map<string, number>();
const byOwner = new Map<string, number>();
for (const node of profile.nodes) {
  const us = selfUs.get(node.id) ?? 0;
  if (us === 0) continue;
  const where = owner(node.callFrame.url);
  const name = `${node.callFrame.functionName || '(anonymous)'}  ${where}:${node.callFrame.lineNumber + 1}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + us);
  byOwner.set(where, (byOwner.get(where) ?? 0) + us);
}

const line = (us: number) => `${(us / 1000).toFixed(0).padStart(7)} ms ${((100 * us) / totalUs).toFixed(1).padStart(5)} %`;
console.log(`${file}: ${(totalUs / 1e6).toFixed(1)} s sampled`);
console.log('self time by function:');
for (const [name, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${line(us)}  ${name}`);
console.log('self time by package or file:');
for (const [name, us] of [...byOwner].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${line(us)}  ${name}`);
