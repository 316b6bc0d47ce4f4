/*
 * What `npm start` and the benches build before they run, when it is missing or older than its
 * sources: the web app (web/dist, which the control plane serves) and the compiled servers
 * (control-plane/dist, host-agent/dist, which the benches run as a school does).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { compileServers } from './compile-servers.ts';
import { repoRoot, runCommand } from './run.ts';

/** The newest modification time of a file or anything in a folder; 0 when it does not exist. */
export function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry === 'dist') continue;
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

/** Why `outputs` need building from `sources` (relative to the repository), or undefined when they are up to date. */
function staleness(outputs: string[], sources: string[]): 'missing' | 'changed' | undefined {
  const builtAt = Math.min(...outputs.map((output) => newestMtime(join(repoRoot, output))));
  if (builtAt === 0) return 'missing';
  const sourcesAt = Math.max(...sources.map((source) => newestMtime(join(repoRoot, source))));
  return sourcesAt > builtAt ? 'changed' : undefined;
}

/** The web app imports the contract; vite's config and plugin shape the build too. */
const webSources = ['web/src', 'web/public', 'web/index.html', 'web/vite.config.ts', 'web/vite-precompress.ts', 'web/package.json', 'contract/src'];

/** Builds web/dist (where `vite build` writes; WEB_DIST only changes what the control plane serves). Resolves false when the build failed. */
export async function buildWebIfStale(log: (line: string) => void = console.log): Promise<boolean> {
  const why = staleness(['web/dist/index.html'], webSources);
  if (!why) {
    log('web/dist is up to date');
    return true;
  }
  log(why === 'missing' ? 'web/dist is missing: building' : 'web sources changed since the last build: building');
  return (await runCommand('npm', ['run', 'build', '-w', '@devplein/web'])) === 0;
}

const serverOutputs = ['control-plane/dist/main.js', 'host-agent/dist/bin/agent.js'];
const serverSources = [
  'control-plane/src',
  'host-agent/src',
  'server-kit/src',
  'contract/src',
  'proto/gen',
  'proto/version.ts',
  'scripts/lib/compile-servers.ts',
  'scripts/lib/server-bundle.ts',
  'package-lock.json',
];

/** Compiles the servers (`npm run build:servers`) when their dist is missing or older than their sources. */
export async function buildServersIfStale(log: (line: string) => void = console.log): Promise<void> {
  const why = staleness(serverOutputs, serverSources);
  if (!why) {
    log('control-plane/dist and host-agent/dist are up to date');
    return;
  }
  log(why === 'missing' ? 'the compiled servers are missing: building' : 'server sources changed since the last build: building');
  await compileServers();
}
