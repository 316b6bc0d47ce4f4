/**
 * npm 12 runs no dependency's install script that package.json's `allowScripts` does not allow.
 * `npm ci` with npm 12 (on the servers' Node 24: npm 12 wants Node 22 or newer) in a copy of
 * the manifests and the lockfile must still give a working tree: ssh2's native crypto built and
 * loading (ssh2 and cpu-features compile in their install scripts), esbuild bundling, buf
 * running. The packages come from npm's local cache when `npm ci` filled it before (about a
 * minute on 2 cores, more under load).
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCachedNode } from '../../../scripts/lib/node-cache.ts';
import { serverNode } from '../../../scripts/lib/release/node-runtime.ts';
import { serverNodeEnv } from '../../../scripts/lib/server-node.ts';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../../..');
/** The npm 12 release this was checked with; a newer one is a deliberate change here. */
const NPM_12 = 'npm@12.2.2';

let copy: string;
let env: NodeJS.ProcessEnv;
let install: { stdout: string; stderr: string };

beforeAll(async () => {
  const manifest = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { workspaces: string[] };
  copy = await mkdtemp(path.join(os.tmpdir(), 'devplein-npm12-'));
  for (const file of ['package.json', 'package-lock.json', '.npmrc']) await cp(path.join(root, file), path.join(copy, file));
  for (const workspace of manifest.workspaces) {
    await mkdir(path.join(copy, workspace));
    await cp(path.join(root, workspace, 'package.json'), path.join(copy, workspace, 'package.json'));
  }
  env = serverNodeEnv(await ensureCachedNode(serverNode));
  install = await run('npx', ['-y', NPM_12, 'ci', '--prefer-offline'], { cwd: copy, env, maxBuffer: 64 * 1024 * 1024 });
}, 600_000);

afterAll(async () => {
  if (copy) await rm(copy, { recursive: true, force: true });
});

describe('npm ci with npm 12', () => {
  it('runs on npm 12 and leaves no install script unreviewed', async () => {
    expect((await run('npx', ['-y', NPM_12, '--version'], { cwd: copy, env })).stdout.trim()).toMatch(/^12\./);
    const pending = await run('npx', ['-y', NPM_12, 'approve-scripts', '--allow-scripts-pending'], { cwd: copy, env });
    expect(pending.stdout).toContain('No packages with unreviewed install scripts');
    expect(`${install.stdout}\n${install.stderr}`).not.toMatch(/install scripts? (?:not covered|blocked|skipped)/i);
  });

  it("built ssh2's native crypto, which the servers' Node loads", async () => {
    const { stdout } = await run('node', ['-p', "require('ssh2/lib/protocol/crypto.js').bindingAvailable"], { cwd: copy, env });
    expect(stdout.trim()).toBe('true');
  });

  it('gives a working esbuild and buf', async () => {
    await writeFile(path.join(copy, 'probe.ts'), 'const answer: number = 42;\nconsole.log(answer);\n');
    const bundled = await run(path.join(copy, 'node_modules/.bin/esbuild'), ['probe.ts', '--format=esm'], { cwd: copy, env });
    expect(bundled.stdout).toContain('console.log(answer)');
    const buf = await run(path.join(copy, 'node_modules/.bin/buf'), ['--version'], { cwd: copy, env });
    expect(buf.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
