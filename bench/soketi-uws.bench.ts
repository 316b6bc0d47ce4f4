/*
 * Which soketi / uWebSockets.js / Node combinations deliver websocket traffic on this machine
 * (docs/operations.md, "soketi's Node"). soketi 1.6.1 loads `uWebSockets.js` by name; each
 * build of it on the npm registry is tried in its place, on the bundle's soketi Node (20) and on
 * its server Node (24): soketi starts, a pusher-js client subscribes over the websocket and an
 * event triggered through soketi's HTTP API must reach it.
 *
 * The builds are fetched once with `npm pack` into the machine's cache; soketi runs from a
 * folder of symlinks to this checkout's node_modules with only uWebSockets.js swapped
 * (node --preserve-symlinks), so the repository's install is never touched.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { machineCacheDir, ensureCachedNode } from '../scripts/lib/node-cache.ts';
import { forEachLine, LineTail, stopChild } from '../scripts/lib/processes.ts';
import { serverNode, soketiNode, type NodeRuntime } from '../scripts/lib/release/node-runtime.ts';
import { repoRoot } from '../scripts/lib/run.ts';
import { soketiLaunch } from '../scripts/lib/soketi.ts';
import { findFreePort, waitForHttp } from '../scripts/lib/net.ts';
import { triggerAndReceive } from '../tests/support/clients/realtime-event.ts';

const run = promisify(execFile);

interface Build {
  label: string;
  /** An npm spec fetched with `npm pack`, or undefined for the one installed in node_modules (the override). */
  spec?: string;
}

const builds: Build[] = [
  { label: '@trufflesuite/uws-js-unofficial@20.30.0-unofficial.0 (the override)' },
  { label: '@btc-vision/uwebsockets.js@20.57.0', spec: '@btc-vision/uwebsockets.js@20.57.0' },
  { label: 'uwebsockets@3.0.6', spec: 'uwebsockets@3.0.6' },
];

/** The unpacked package of `spec` in the machine's cache. */
async function fetchBuild(spec: string): Promise<string> {
  const dir = path.join(machineCacheDir(), 'uws', spec.replace(/[@/]/g, '_'));
  if (existsSync(path.join(dir, 'package.json'))) return dir;
  const partial = `${dir}.partial-${process.pid}`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  const { stdout } = await run('npm', ['pack', '--silent', spec, '--pack-destination', partial], { maxBuffer: 1024 * 1024 });
  await run('tar', ['-xzf', path.join(partial, stdout.trim().split('\n').pop()!), '-C', partial, '--strip-components=1']);
  await rename(partial, dir);
  return dir;
}

/** A node_modules of symlinks to this checkout's, with uWebSockets.js pointing at `uwsDir`. */
async function overlay(uwsDir: string): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'devplein-uws-'));
  const modules = path.join(root, 'node_modules');
  await mkdir(modules);
  for (const entry of await readdir(path.join(repoRoot, 'node_modules'))) {
    if (entry === 'uWebSockets.js' || entry === '.bin') continue;
    await symlink(path.join(repoRoot, 'node_modules', entry), path.join(modules, entry));
  }
  await symlink(uwsDir, path.join(modules, 'uWebSockets.js'));
  return root;
}

/** Whether `node` loads the build's binary for its ABI, or why not (the package's own error hides the loader's). */
async function binaryLoads(uwsDir: string, node: string): Promise<string> {
  const { stdout: abi } = await run(node, ['-p', 'process.versions.modules']);
  const name = `uws_linux_x64_${abi.trim()}.node`;
  const file = [path.join(uwsDir, name), path.join(uwsDir, 'binaries', name)].find((candidate) => existsSync(candidate));
  if (!file) return `no ${name}`;
  try {
    await run(node, ['-e', 'process.dlopen({ exports: {} }, process.argv[1])', file]);
    return `${name} loads`;
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    return `${name}: ${/version `GLIBC_[0-9.]+' not found/.exec(stderr)?.[0] ?? stderr.split('\n').find((line) => line.startsWith('Error')) ?? 'does not load'}`;
  }
}

interface Outcome {
  build: string;
  node: string;
  result: string;
}

async function measure(build: Build, uwsDir: string, runtime: NodeRuntime): Promise<Outcome> {
  const node = await ensureCachedNode(runtime);
  const root = await overlay(uwsDir);
  const suffix = randomBytes(4).toString('hex');
  const app = { host: '127.0.0.1', port: await findFreePort(), appId: `app-${suffix}`, key: `key-${suffix}`, secret: `secret-${suffix}` };
  const launch = await soketiLaunch({ ...app, clusterPort: await findFreePort(), metricsPort: await findFreePort(), shutdownGracePeriodMs: 200 });
  const server = path.join(root, 'node_modules/@soketi/soketi/bin/server.js');
  const child = spawn(node.binary, ['--preserve-symlinks', '--preserve-symlinks-main', server, ...launch.args.slice(1)], {
    cwd: launch.workDir,
    env: { PATH: process.env.PATH, ...launch.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail = new LineTail(20);
  forEachLine(child.stdout, (line) => tail.push(line));
  forEachLine(child.stderr, (line) => tail.push(line));
  const binary = await binaryLoads(uwsDir, node.binary);
  const outcome = (result: string): Outcome => ({ build: build.label, node: `Node ${runtime.version}`, result: `${binary}; soketi ${result}` });
  try {
    try {
      await waitForHttp(`http://${app.host}:${app.port}/`, { description: 'soketi', timeoutMs: 30_000, giveUpIf: () => (child.exitCode !== null ? 'soketi exited' : undefined) });
    } catch {
      const why = tail.toString().split('\n').find((line) => /Error|GLIBC|error/.test(line)) ?? tail.toString().split('\n').pop();
      return outcome(`does not start: ${why?.trim().slice(0, 100)}`);
    }
    const fallback = tail.toString().includes('Falling back to a NodeJS implementation');
    const started = performance.now();
    const received = await Promise.race([
      triggerAndReceive(app).then((payload) => JSON.stringify(payload), (error: unknown) => `error ${error instanceof Error ? error.message : String(error)}`),
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 15_000)),
    ]);
    if (received === undefined || received.startsWith('error ')) {
      return outcome(`starts${fallback ? ' on the JavaScript fallback' : ''}, no websocket event within 15 s${received ? ` (${received})` : ''}`);
    }
    return outcome(`delivers the event (${received}) in ${(performance.now() - started).toFixed(0)} ms`);
  } finally {
    await stopChild(child, 5_000);
    await rm(root, { recursive: true, force: true });
    await rm(launch.workDir, { recursive: true, force: true });
  }
}

const glibc = readFileSync('/etc/os-release', 'utf8').match(/PRETTY_NAME="([^"]+)"/)?.[1] ?? 'this system';
const { stdout: lddVersion } = await run('ldd', ['--version']);
console.log(`${glibc}, ${lddVersion.split('\n')[0]}`);
const outcomes: Outcome[] = [];
for (const build of builds) {
  const uwsDir = build.spec ? await fetchBuild(build.spec) : path.join(repoRoot, 'node_modules', 'uWebSockets.js');
  for (const runtime of [soketiNode, serverNode]) {
    const result = await measure(build, uwsDir, runtime);
    console.log(`  ${result.build} on ${result.node}: ${result.result}`);
    outcomes.push(result);
  }
}
// Exit 1 when no combination delivers: realtime would be dead on this machine.
process.exit(outcomes.some((outcome) => outcome.result.includes('soketi delivers')) ? 0 : 1);
