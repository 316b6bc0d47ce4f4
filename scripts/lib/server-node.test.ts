import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCachedNode } from './node-cache.ts';
import { serverNode, soketiNode } from './release/node-runtime.ts';
import { repoRoot } from './run.ts';

/** A script as npm start is one: it calls runOnServerNode first, then says where it runs. */
const script = `
import { execFileSync } from 'node:child_process';
import { runOnServerNode } from ${JSON.stringify(path.join(repoRoot, 'scripts/lib/server-node.ts'))};
await runOnServerNode();
process.on('SIGTERM', () => { console.log('got SIGTERM'); process.exit(5); });
const onPath = execFileSync('node', ['-p', 'process.version'], { encoding: 'utf8' }).trim();
console.log(JSON.stringify({ version: process.version, args: process.argv.slice(2), onPath }));
if (process.argv[2] === 'wait') setInterval(() => undefined, 1_000);
else process.exit(3);
`;

let dir: string;
let file: string;
/** Another Node than the servers' one starts the script, as the machine's Node 20 does. */
let otherNode: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'devplein-server-node-'));
  // .mts: outside the repository no package.json says ES modules (the script awaits at top level).
  file = path.join(dir, 'script.mts');
  await writeFile(file, script);
  otherNode = (await ensureCachedNode(soketiNode)).binary;
  await ensureCachedNode(serverNode);
}, 300_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function start(args: string[]) {
  const child = spawn(otherNode, ['--import', 'tsx', file, ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

describe('runOnServerNode', () => {
  it("runs the script again on the servers' Node, with its arguments, that Node first on PATH, and its exit code", async () => {
    const run = start(['x', 'y z']);
    expect(await run.exited).toBe(3);
    expect(JSON.parse(run.output())).toEqual({ version: `v${serverNode.version}`, args: ['x', 'y z'], onPath: `v${serverNode.version}` });
  }, 60_000);

  it('passes a SIGTERM sent to the first process on to the script', async () => {
    const run = start(['wait']);
    await expect.poll(() => run.output(), { timeout: 30_000 }).toContain('"version"');
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(5);
    expect(run.output()).toContain('got SIGTERM');
  }, 60_000);
});
