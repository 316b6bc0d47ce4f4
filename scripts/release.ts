/*
 * `npm run release [-- --out DIR]`: the release bundle a school installs, devplein-<version>.tar.gz
 * in DIR (default release/), with its checksum (.sha256) and, when DEVPLEIN_RELEASE_KEY names the
 * school's release key, a detached signature (.sig). What is inside: scripts/lib/release/stage.ts
 * and docs/operations.md, "Release bundle". The version is package.json's, and CHANGELOG.md must
 * have its entry (`## <version>`).
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { compileServers } from './lib/compile-servers.ts';
import { rebuildNativeAddonsForThisNode } from './lib/native-addons.ts';
import { machineCacheDir } from './lib/node-cache.ts';
import { packTarGz } from './lib/release/archive.ts';
import { readLockfile } from './lib/release/production-tree.ts';
import { signFile, writeChecksum } from './lib/release/sign.ts';
import { stageBundle } from './lib/release/stage.ts';
import { bin, repoRoot, runCommand } from './lib/run.ts';
import { runOnServerNode } from './lib/server-node.ts';

// On the bundle's own Node 24: the native addons copied into the bundle are built for the Node that loads them.
await runOnServerNode();

const run = promisify(execFile);
const { values } = parseArgs({ options: { out: { type: 'string' } } });
const outDir = path.resolve(values.out ?? path.join(repoRoot, 'release'));

const { version } = JSON.parse(await readFile(path.join(repoRoot, 'package.json'), 'utf8')) as { version?: string };
if (!version) throw new Error('package.json has no "version"');
const changelog = await readFile(path.join(repoRoot, 'CHANGELOG.md'), 'utf8');
if (!new RegExp(`^## ${version.replaceAll('.', '\\.')}(\\s|$)`, 'm').test(changelog)) {
  console.error(`CHANGELOG.md has no entry "## ${version}": write what changed before releasing it.`);
  process.exit(1);
}

// The bundle's node is linux-x64, and the native parts of its npm packages come from this checkout.
if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error('a release is built on linux-x64 (as it runs)');

// ssh2's crypto and cpu-features (NAN) as `npm ci` on another Node left them: rebuilt for this one first.
const natives = await rebuildNativeAddonsForThisNode(repoRoot);
if (natives.failed.length > 0) throw new Error(`the bundle would carry native addons its Node cannot load: ${natives.failed.map(({ name }) => name).join(', ')}`);

const name = `devplein-${version}`;
await mkdir(outDir, { recursive: true });
const staging = await mkdtemp(path.join(outDir, '.staging-'));
try {
  const stageDir = path.join(staging, name);
  // Built straight into the bundle: the repository's own dist folders (which tests and npm start use) stay as they are.
  console.log(`== ${name}: compiling the servers and building the web app`);
  const compiled = await compileServers(stageDir);
  const webDist = path.join(stageDir, 'web', 'dist');
  // What `npm run build:web` runs, into the bundle (npm would take --outDir for one of its own settings).
  const viteBuild = ['build', '--outDir', webDist, '--emptyOutDir', '--logLevel', 'warn'];
  if ((await runCommand(bin('vite'), viteBuild, { cwd: path.join(repoRoot, 'web') })) !== 0) throw new Error('vite build of the web app failed');
  console.log(`== staging ${name}`);
  const report = await stageBundle({
    repoRoot,
    stageDir,
    version,
    compiled,
    lockfile: await readLockfile(path.join(repoRoot, 'package-lock.json')),
    // The same Node packages npm start and npm test unpack: fetched once per machine, not per clone.
    cacheDir: path.join(machineCacheDir(), 'node'),
  });
  console.log(`npm packages: ${report.packages.servers} for the servers, ${report.packages.soketi} for soketi`);
  if (report.notInstalled.length > 0) console.log(`imported but not installed (optional, left out): ${report.notInstalled.join(', ')}`);

  // Every file dated by the last commit (or SOURCE_DATE_EPOCH; now outside git): the same tree gives the same tarball.
  const epoch = process.env.SOURCE_DATE_EPOCH ?? (await run('git', ['log', '-1', '--format=%ct'], { cwd: repoRoot }).then(({ stdout }) => stdout.trim(), () => String(Math.floor(Date.now() / 1000))));
  const tarball = path.join(outDir, `${name}.tar.gz`);
  console.log(`== packing ${tarball}`);
  await packTarGz(stageDir, tarball, new Date(Number(epoch) * 1000));
  console.log(`checksum: ${await writeChecksum(tarball)}`);
  // Never an old signature beside a new tarball.
  await rm(`${tarball}.sig`, { force: true });
  const key = process.env.DEVPLEIN_RELEASE_KEY;
  if (key) {
    console.log(`signature: ${await signFile(tarball, key)}`);
  } else {
    console.warn('WARNING: DEVPLEIN_RELEASE_KEY is not set: this release is NOT signed. A school installs only a signed release (docs/operations.md, "Release bundle").');
  }
  console.log(`${name}.tar.gz: ${((await stat(tarball)).size / 1024 / 1024).toFixed(1)} MB`);
} finally {
  await rm(staging, { recursive: true, force: true });
}
