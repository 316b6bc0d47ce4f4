/*
 * How the servers are bundled (scripts/build-servers.ts): the esbuild options shared by every
 * server, and the control plane's, which bundles its npm dependencies too, with the plugins that
 * keep that bundle small: one copy per package version, knex's PostgreSQL dialect only, and
 * stand-ins for packages a dependency loads but uses only later.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { BuildOptions, Plugin } from 'esbuild';
import { repoRoot } from './run.ts';

/**
 * npm packages the control plane's bundle leaves in node_modules: those with wasm or data files
 * read next to their own modules (PGlite, and knex-pglite, which requires it on load), those
 * loaded only on demand and never at idle (the development identity provider, the QR code and
 * SSH key parsers, required through createRequire), and the database drivers knex may load but
 * we never use (none is installed; pg-native is pg's optional native binding).
 */
export const controlPlaneExternal = [
  '@electric-sql/pglite',
  'knex-pglite',
  'oidc-provider',
  'qrcode',
  'sshpk',
  'pg-native',
  'pg-query-stream',
  'better-sqlite3',
  'sqlite3',
  'mysql',
  'mysql2',
  'mariadb',
  'oracledb',
  'tedious',
];

/** `name` or a path inside it ("name/lib/x"), scoped names included. */
export const packageName = (specifier: string): string => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

/** pluginData of externalNpmPackages' own builder.resolve() (which it then leaves alone). */
const SAME_COPY = Symbol('same-copy-at-run-time');

/**
 * Bare imports of the packages `keep` names stay external (resolved from node_modules at run
 * time), when node, running the bundle from `workspace`/dist (which has no node_modules of its
 * own: node looks in the workspace's, then the root's), finds the same copy of the package as
 * the importer does here. A workspace package's dependency that node would find in
 * another version there is bundled instead: server-kit's croner 11 sat in
 * server-kit/node_modules (until 2026-12-01), and from host-agent/dist node found the root's
 * croner 4 (pm2's, through soketi), without the `protect` option the agent's jobs relied on. The workspace packages
 * themselves are always bundled.
 */
export function externalNpmPackages(keep: (name: string) => boolean, workspace: string): Plugin {
  return {
    name: 'external-npm-packages',
    setup(builder) {
      builder.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData === SAME_COPY || args.path.startsWith('node:') || args.path.startsWith('@devplein/')) return undefined;
        if (!keep(packageName(args.path))) return undefined;
        // Another plugin's own resolve (one-copy-per-version's) gets the plain answer: resolving
        // here again would run that plugin again, without end.
        if (args.pluginData !== undefined) return { path: args.path, external: true };
        const here = await builder.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: SAME_COPY });
        const there = await builder.resolve(args.path, { kind: args.kind, resolveDir: workspace, pluginData: SAME_COPY });
        // Not installed (knex's unused drivers) stays external, as it always was: loading it fails at run time either way.
        const sameCopy = here.errors.length > 0 || (there.errors.length === 0 && packageRoot(here.path) === packageRoot(there.path));
        return sameCopy ? { path: args.path, external: true } : undefined;
      });
    },
  };
}

/**
 * knex requires each of its dialects on demand, but a bundle carries them all: every dialect
 * other than PostgreSQL's (and pgnative's, which extends it) becomes a module that throws.
 */
const postgresDialectOnly: Plugin = {
  name: 'postgres-dialect-only',
  setup(builder) {
    builder.onResolve({ filter: /^\.\/[a-z0-9-]+$/ }, (args) => {
      if (!/[\\/]knex[\\/]lib[\\/]dialects$/.test(args.resolveDir) || ['./postgres', './pgnative'].includes(args.path)) return undefined;
      return { path: args.path, namespace: 'unused-knex-dialect' };
    });
    builder.onLoad({ filter: /.*/, namespace: 'unused-knex-dialect' }, (args) => ({
      contents: `throw new Error('knex dialect ${args.path.slice(2)} is not in this build (PostgreSQL only)');`,
      loader: 'js',
    }));
  },
};

/** pluginData of a plugin's own builder.resolve() (which the plugin then leaves alone). */
const ONE_COPY = Symbol('one-copy-per-version');
const LAZY = Symbol('lazy-until-used');

/** The directory of the package `file` belongs to: the path up to its last node_modules/<name>. */
function packageRoot(file: string): string | undefined {
  return /^(.*[\\/]node_modules[\\/](?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(file)?.[1];
}

/**
 * Packages our sources import in their CommonJS build rather than their ES module one. An ES
 * module's top level becomes the bundle's top level, which V8 compiles at once when the bundle
 * loads: zod's 570 KB alone left 5 MB of parser memory in the process for good. A CommonJS
 * module is a function of its own, compiled when it is first required. (Only for packages whose
 * two builds export the same names: an ES module importing the CommonJS build of a dual package
 * gets its exports object as default export, as in node: import such a package's named exports.)
 * koa-session's ES module build imports zod 3's ES module build: its CommonJS build requires
 * zod 3's CommonJS one instead.
 */
const commonJsBuildFor = ['zod', 'koa-session'];

function preferCommonJs(specifier: string, importer: string): boolean {
  return commonJsBuildFor.includes(specifier) && !/[\\/]node_modules[\\/]/.test(importer);
}

/**
 * npm installs a package once per version range that cannot share a copy, and sometimes the
 * same version twice (koa's and type-is's mime-db and mime-types, objection's and ajv-formats'
 * ajv). A bundle needs one copy of each version: every import of a package resolves to the
 * first copy of that name and version seen.
 */
const oneCopyPerVersion: Plugin = {
  name: 'one-copy-per-version',
  setup(builder) {
    const firstCopy = new Map<string, string>();
    builder.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === ONE_COPY || args.path.startsWith('node:')) return undefined;
      const kind = args.kind === 'import-statement' && preferCommonJs(args.path, args.importer) ? 'require-call' : args.kind;
      const resolved = await builder.resolve(args.path, { kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: ONE_COPY });
      const root = resolved.errors.length === 0 && !resolved.external ? packageRoot(resolved.path) : undefined;
      if (!root) return undefined;
      const { name, version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { name?: string; version?: string };
      const key = `${name}@${version}`;
      const first = firstCopy.get(key);
      if (first === undefined) firstCopy.set(key, root);
      return { ...resolved, path: first === undefined ? resolved.path : first + resolved.path.slice(root.length) };
    });
  },
};

/**
 * Packages that a dependency requires when it loads but uses only later, if ever: the importer
 * (matched by path) gets a stand-in that requires the real package at its first use, so an idle
 * control plane never evaluates them. Each stand-in has the shape the importer uses.
 */
const lazyUntilUsed: Array<{ importer: RegExp; specifier: string; standIn: (real: string) => string }> = [
  // objection builds its JSON-schema validator on a model's first validation (no model of ours has
  // a jsonSchema): `new Ajv(...)` and `addFormats(ajv)`.
  { importer: /[\\/]objection[\\/]lib[\\/]model[\\/]AjvValidator\.js$/, specifier: 'ajv', standIn: (real) => `module.exports = function Ajv(...args) { return new (require(${real}))(...args); };` },
  { importer: /[\\/]objection[\\/]lib[\\/]model[\\/]AjvValidator\.js$/, specifier: 'ajv-formats', standIn: (real) => `module.exports = (...args) => require(${real})(...args);` },
  // pusher needs node-fetch (with whatwg-url's 250 KB Unicode table) for its first event, and
  // tweetnacl only for encrypted channels.
  { importer: /[\\/]pusher[\\/]lib[\\/]requests\.js$/, specifier: 'node-fetch', standIn: (real) => `exports.default = (...args) => require(${real}).default(...args);` },
  { importer: /[\\/]pusher[\\/]lib[\\/]events\.js$/, specifier: 'tweetnacl', standIn: (real) => `module.exports = new Proxy({}, { get: (_, key) => require(${real})[key] });` },
];

const lazyRequires: Plugin = {
  name: 'lazy-until-used',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, async (args) => {
      // Its own resolve of the real package, and one-copy-per-version's of any package, pass by.
      if (args.pluginData === LAZY || args.pluginData === ONE_COPY) return undefined;
      const lazy = lazyUntilUsed.find((entry) => entry.specifier === args.path && entry.importer.test(args.importer));
      if (!lazy) return undefined;
      const real = await builder.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: LAZY });
      if (real.errors.length > 0) return { errors: real.errors };
      return { path: real.path, namespace: 'lazy-until-used', pluginData: lazy };
    });
    builder.onLoad({ filter: /.*/, namespace: 'lazy-until-used' }, (args) => ({
      contents: (args.pluginData as (typeof lazyUntilUsed)[number]).standIn(JSON.stringify(args.path)),
      resolveDir: path.dirname(args.path),
      loader: 'js',
    }));
  },
};

/**
 * CommonJS packages in an ES module bundle call require() (for node's own modules) and read
 * __dirname/__filename: give them those of the bundle's file.
 */
const commonJsShims = [
  "import { createRequire as __devpleinCreateRequire } from 'node:module';",
  "import { fileURLToPath as __devpleinFileURLToPath } from 'node:url';",
  'const require = __devpleinCreateRequire(import.meta.url);',
  'const __filename = __devpleinFileURLToPath(import.meta.url);',
  "const __dirname = __devpleinFileURLToPath(new URL('.', import.meta.url));",
].join('\n');

/** Options of every server bundle: ES modules for node 20, our TypeScript sources and the workspace packages inside. */
export const serverBuildOptions: BuildOptions = {
  bundle: true,
  // A module imported with import() (the development identity provider) becomes a chunk of
  // its own, loaded, with its npm imports, only when it is imported: not at start.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // The workspace packages export their TypeScript under the `development` condition only (no
  // npm package in the control plane's bundle has such a condition: checked for issue 19).
  conditions: ['development'],
  // No source map (that is what costs memory).
  sourcemap: false,
  logLevel: 'warning',
  legalComments: 'none',
};

/** The control plane: its npm dependencies bundled (but controlPlaneExternal), minified. */
export const controlPlaneBuildOptions: BuildOptions = {
  ...serverBuildOptions,
  plugins: [externalNpmPackages((name) => controlPlaneExternal.includes(name), path.join(repoRoot, 'control-plane')), postgresDialectOnly, lazyRequires, oneCopyPerVersion],
  banner: { js: commonJsShims },
  // Module text is kept in memory for as long as the process lives: without blanks and with
  // shorter syntax it is two thirds. Identifiers are not minified: names stay readable in stack
  // traces and heap snapshots, and esbuild would turn each CommonJS module's wrapper into an
  // arrow function passed in parentheses, which V8 compiles eagerly (+20 MB at start).
  minifyWhitespace: true,
  minifySyntax: true,
  // Classes keep their own name where the bundle renames the binding: two packages' top-level
  // `AbortSignal` (abort-controller's, used by pusher) became `AbortSignal2`, and node-fetch
  // recognises a signal by `constructor.name === 'AbortSignal'`, so every realtime trigger of the
  // bundled control plane failed ("Expected signal to be an instanceof AbortSignal").
  keepNames: true,
};

/**
 * The host agent: every npm dependency stays in node_modules (playwright-core, dockerode's native
 * parts), but one node would not find there (see externalNpmPackages).
 */
export const hostAgentBuildOptions: BuildOptions = {
  ...serverBuildOptions,
  plugins: [externalNpmPackages(() => true, path.join(repoRoot, 'host-agent'))],
};
