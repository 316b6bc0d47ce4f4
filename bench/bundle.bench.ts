/**
 * The web app on a phone: what each page downloads before it first paints.
 * Builds the web app (vite build, production) into a private directory — or, with BENCH_WEB_DIST
 * set, reads a build that is already there (e.g. BENCH_WEB_DIST=web/dist after `npm run build:web`) —
 * and reads Vite's manifest (build.manifest). Prints:
 * 1. the main bundle: the entry chunk and its static imports (what every page loads before it
 *    renders), each file's gzip -9 size and the total against the 120 KB budget;
 * 2. per route of web/src/routes.tsx: the chunks loaded at first paint (main bundle + the route's
 *    lazy chunk with its static imports) and their gzip total.
 * Routes and their page modules come from the router's source, chunks from the manifest: no file
 * names are listed here. Fails when the main bundle is over budget, when a page is not lazy
 * (other than the landing pages) or when a non-admin page loads code of an admin page.
 * KB = 1,000 bytes, as Vite prints them.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { bin, runCommand } from '../scripts/lib/run.ts';
import { chunkFiles, entryKey, readViteManifest, type ChunkFiles, type ViteManifest } from './lib/vite-manifest.ts';
import { readWebRoutes, type WebRoute } from './lib/web-routes.ts';

const MAIN_BUNDLE_BUDGET_KB = 120;
/** Pages the app shell itself sends people to (tiny); they may live in the main bundle. */
const LANDING_ROUTES = new Set(['home', 'login', 'notVerified']);
const root = path.resolve(import.meta.dirname, '..');
const webRoot = path.join(root, 'web');

const kb = (bytes: number): string => `${(bytes / 1000).toFixed(1)} KB`;

/** Builds into a fresh directory (a rebuild of web/dist meanwhile cannot mix two builds) unless BENCH_WEB_DIST names one. */
async function webDist(): Promise<{ dist: string; cleanup: () => void }> {
  const given = process.env.BENCH_WEB_DIST;
  if (given !== undefined && given !== '') {
    const dist = path.resolve(root, given);
    console.log(`Reading the build in ${dist} (BENCH_WEB_DIST; not rebuilt)`);
    return { dist, cleanup: () => undefined };
  }
  const dist = mkdtempSync(path.join(tmpdir(), 'devplein-bundle-'));
  console.log(`Building the web app (vite build) into ${dist}`);
  const code = await runCommand(bin('vite'), ['build', '--outDir', dist, '--emptyOutDir', '--logLevel', 'warn'], { cwd: webRoot });
  if (code !== 0) throw new Error(`vite build failed (exit ${code})`);
  return { dist, cleanup: () => rmSync(dist, { recursive: true, force: true }) };
}

function gzipSizes(dist: string) {
  const cache = new Map<string, number>();
  return (file: string): number => {
    let size = cache.get(file);
    if (size === undefined) {
      size = gzipSync(readFileSync(path.join(dist, file)), { level: 9 }).length;
      cache.set(file, size);
    }
    return size;
  };
}

interface RouteBundle {
  route: WebRoute;
  files: ChunkFiles;
  /** JS files beyond the main bundle. */
  pageJs: string[];
}

function routeBundles(manifest: ViteManifest, entry: string, main: ChunkFiles, routes: readonly WebRoute[]): RouteBundle[] {
  return routes.map((route) => {
    if (route.lazy && manifest[route.pageModule]?.isDynamicEntry !== true) {
      throw new Error(`route ${route.name}: ${route.pageModule} is lazy in routes.tsx but not a dynamic entry in the manifest`);
    }
    const files = chunkFiles(manifest, route.lazy ? [entry, route.pageModule] : [entry]);
    return { route, files, pageJs: files.js.filter((file) => !main.js.includes(file)) };
  });
}

async function main() {
  const { dist, cleanup } = await webDist();
  try {
    const manifest = readViteManifest(dist);
    const gzip = gzipSizes(dist);
    const total = (files: readonly string[]): number => files.reduce((sum, file) => sum + gzip(file), 0);
    const entry = entryKey(manifest);
    const main = chunkFiles(manifest, [entry]);
    const entryFile = manifest[entry]?.file ?? entry;

    const mainTotal = total(main.js);
    console.log(`\nMain bundle (${entry} entry + its static imports; every page loads it before it renders), gzip -9:`);
    for (const file of [...main.js].sort((a, b) => gzip(b) - gzip(a))) console.log(`  ${kb(gzip(file)).padStart(9)}  ${file}${file === entryFile ? '  (entry chunk)' : ''}`);
    console.log(`  ${kb(mainTotal).padStart(9)}  total JS, budget ${MAIN_BUNDLE_BUDGET_KB} KB: ${(mainTotal / 1000 / MAIN_BUNDLE_BUDGET_KB).toFixed(2)}× the budget`);
    console.log(`  ${kb(gzip(entryFile)).padStart(9)}  entry chunk alone; CSS ${kb(total(main.css))}`);

    const routes = readWebRoutes(webRoot);
    const bundles = routeBundles(manifest, entry, main, routes);
    console.log('\nPer route, first paint = main bundle + the page chunk and its static imports (gzip -9):');
    const nameWidth = Math.max(...routes.map((route) => route.name.length));
    const pathWidth = Math.max(...routes.map((route) => route.path.length));
    console.log(`  ${'route'.padEnd(nameWidth)}  ${'path'.padEnd(pathWidth)}  access  ${'JS total'.padStart(9)}  ${'page JS'.padStart(9)}  ${'CSS'.padStart(8)}  page chunks`);
    for (const { route, files, pageJs } of bundles) {
      const chunks = route.lazy ? pageJs.map((file) => `${path.basename(file)} ${kb(gzip(file))}`).join(', ') : '(in the main bundle)';
      console.log(
        `  ${route.name.padEnd(nameWidth)}  ${route.path.padEnd(pathWidth)}  ${route.access.padEnd(6)}  ${kb(total(files.js)).padStart(9)}  ${kb(total(pageJs)).padStart(9)}  ${kb(total(files.css)).padStart(8)}  ${chunks}`,
      );
    }

    // Code that only admin pages use: the page chunks of admin routes.
    const adminPageFiles = new Set(
      bundles.filter(({ route }) => route.access === 'admin' && route.lazy).map(({ route }) => manifest[route.pageModule]?.file),
    );
    const problems: string[] = [];
    if (mainTotal > MAIN_BUNDLE_BUDGET_KB * 1000) problems.push(`main bundle ${kb(mainTotal)} is over the ${MAIN_BUNDLE_BUDGET_KB} KB budget`);
    for (const { route, files } of bundles) {
      if (!route.lazy && !LANDING_ROUTES.has(route.name)) problems.push(`route ${route.name} is not lazy: its page is in the main bundle`);
      if (route.access === 'admin') continue;
      const adminCode = files.js.filter((file) => adminPageFiles.has(file));
      if (adminCode.length > 0) problems.push(`route ${route.name} (${route.access}) loads admin page code: ${adminCode.join(', ')}`);
    }
    const adminRoutes = bundles.filter(({ route }) => route.access === 'admin').length;
    console.log(`\n${routes.length} routes, ${adminRoutes} admin-only; admin page chunks loaded by a non-admin route: ${problems.some((problem) => problem.includes('admin page code')) ? 'some (see below)' : 'none'}`);
    if (problems.length > 0) throw new Error(problems.join('\n'));
  } finally {
    cleanup();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
