// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/*
 * Import boundaries between the rooms of the repository (docs/architecture.md). ESLint's own
 * no-restricted-imports, a block for each room's production files and one for its unit tests. A
 * file gets the patterns of the LAST block whose `files` match it (flat config replaces a rule's
 * options, it does not merge them), so each block lists every pattern its room obeys. Patterns are regular expressions on the import specifier:
 * a relative path as written, or a package name. Dynamic import() is not checked.
 */

const sourceFiles = '{ts,tsx}';
const testFiles = ['**/*.test.ts', '**/*.test.tsx'];

/** @param {string} regex @param {string} message */
const pattern = (regex, message) => ({ regex, message });

const noWeb = pattern(
  String.raw`(^|/)web/src(/|$)|^@devplein/web(/|$)`,
  'control-plane/src and host-agent/src never import web; shared rules and API shapes live in @devplein/contract.',
);
const noHostAgent = pattern(
  String.raw`^\.{1,2}/(.*/)?host-agent(/|$)|^@devplein/host-agent(/|$)`,
  'The control plane reaches the host agent over gRPC (@devplein/proto), never through its source.',
);
const noControlPlane = pattern(
  String.raw`^\.{1,2}/(.*/)?control-plane(/|$)|^@devplein/control-plane(/|$)`,
  'The host agent serves the control plane over gRPC (@devplein/proto), never through its source.',
);
const noTests = pattern(
  String.raw`^\.{1,2}/(.*/)?tests(/|$)`,
  'Source never imports tests/; test fixtures live in tests/support and only test files use them.',
);
const noCompositionRoot = pattern(
  String.raw`^(\.\./)+(app|app-services|background-work|main)\.ts$`,
  'Only main.ts assembles the app: take AppDeps from app-context.ts, routers go in routes/route-table.ts.',
);
const noRoutes = pattern(
  String.raw`^(\.\./)+routes(/|$)`,
  'Only app.ts and main.ts import routes/; move what routes share with others to commands/, queries/ or presenters/.',
);
const noAgentServers = pattern(
  String.raw`^(\.\./)+(jobs|services)(/|$)`,
  'host-agent drivers wrap one external system each; they never import jobs/ or services/ (those import drivers).',
);
const noDockerode = pattern(
  String.raw`^dockerode$`,
  'host-agent/src reaches Docker only through drivers/docker/engine.ts (DockerEngine), the one module that holds dockerode.',
);
const webOnlyContract = pattern(
  String.raw`^@devplein/(?!contract(/|$))`,
  'web/src imports only web/src, the config/ data files, @devplein/contract and npm packages.',
);
const contractOnlyZod = pattern(
  String.raw`^(?!(zod|vitest)$|\./|\.\./(?!\.\./))`,
  'contract/src is zod and types only: it imports zod and its own files (no Node or DOM APIs, no other room).',
);
/*
 * Issue 37: the control plane's layers. Each may import the ones below it, never one above, so
 * no two folders import each other (tests/lint/layers.test.ts counts the pairs): lib (pure
 * helpers) ← agent (the gRPC clients and their views) ← queries (reads and their row types) ←
 * presenters (rows → contract JSON) and commands (writes; they return rows) ← services (the
 * long-lived ones, app-services.ts) ← jobs ← routes. A lower layer reaches a service only
 * through AppDeps['services'] (app-context.ts). Unit tests beside the code are not held to it.
 */
const layerPattern = (folders, message) => pattern(String.raw`^(\.\./)+(${folders.join('|')})/`, message);
const libIsPure = pattern(
  String.raw`^\.\./(?!\.\./)[^/.][^/]*/`,
  'lib/ holds small pure helpers: it imports only lib/, the top-level type files (config.ts, http-context.ts) and packages; a helper that needs another room belongs in that room.',
);
const agentLayer = layerPattern(
  ['queries', 'presenters', 'commands', 'services', 'jobs', 'auth', 'middlewares', 'metrics', 'policies'],
  'agent/ is the link to the dev servers: it imports only lib/ and the top-level files; what uses its views (queries, presenters, commands, services) imports agent/, not the reverse.',
);
const queriesLayer = layerPattern(
  ['presenters', 'commands', 'services', 'jobs', 'auth', 'middlewares'],
  'queries/ are reads with their row types: presenters, commands and services import them, never the reverse (a service type comes through AppDeps[\'services\'] of app-context.ts).',
);
const presentersLayer = layerPattern(
  ['commands', 'services', 'jobs', 'auth', 'middlewares'],
  'presenters/ turn rows (queries/) into contract JSON: they import queries/ and agent/ views, never commands, services or jobs.',
);
const commandsLayer = layerPattern(
  ['presenters', 'services', 'jobs', 'auth', 'middlewares'],
  'commands/ are writes that return rows (the route presents them): they never import presenters, services (take them from AppDeps[\'services\']), jobs or auth.',
);
const controlPlaneRoomPatterns = [noWeb, noHostAgent, noCompositionRoot, noRoutes];

/**
 * A layer: its production files get the room's patterns, the layer's and noTests; its unit tests
 * only the room's (they may use fakes from other layers and tests/support).
 * @param {string} name @param {string} folder @param {{ regex: string, message: string }} layer
 */
const layer = (name, folder, layerRule) => [
  {
    name: `layers/${name}`,
    files: [`${folder}/*.${sourceFiles}`],
    ignores: testFiles,
    rules: { 'no-restricted-imports': ['error', { patterns: [...controlPlaneRoomPatterns, layerRule, noTests] }] },
  },
];

/**
 * A relative path climbing out of web/src, except to the school's data files in the repository's
 * config/ folder (config/useful-links.json, bundled at build time).
 * @param {number} depth folders between web/src and the file
 */
const notOutOfWebSrc = (depth) =>
  pattern(
    `^(\\.\\./){${depth + 1}}(?!\\.\\./config/)`,
    'web/src imports only web/src, the config/ data files, @devplein/contract and npm packages.',
  );

/**
 * One room: its production files get `patterns` plus noTests; its unit tests (*.test.ts(x)) get
 * `patterns` only, so they may use tests/support (fakes, fixtures).
 * @param {string} name
 * @param {string} folder a glob of the room's folders, e.g. `control-plane/src/**`
 * @param {{ regex: string, message: string }[]} patterns
 * @param {string[]} [ignores]
 * @param {{ regex: string, message: string }[]} [productionOnly] patterns for its production files only
 */
const room = (name, folder, patterns, ignores = [], productionOnly = []) => [
  {
    name: `boundaries/${name}`,
    files: [`${folder}/*.${sourceFiles}`],
    ignores: [...ignores, ...testFiles],
    rules: { 'no-restricted-imports': ['error', { patterns: [...patterns, ...productionOnly, noTests] }] },
  },
  {
    name: `boundaries/${name}-tests`,
    files: [`${folder}/*.test.${sourceFiles}`],
    ignores,
    rules: { 'no-restricted-imports': ['error', { patterns }] },
  },
];

/** How deep web/src's folders may nest for its boundary to hold (a deeper file is unchecked). */
const webDepths = [0, 1, 2, 3, 4, 5, 6, 7];

// Later blocks win: a room's sub-rooms come after it and repeat its patterns.
const importBoundaries = [
  ...room('control-plane', 'control-plane/src/**', [noWeb, noHostAgent]),
  ...room('control-plane-rooms', 'control-plane/src/*/**', [noWeb, noHostAgent, noCompositionRoot, noRoutes], ['control-plane/src/routes/**']),
  ...room('control-plane-routes', 'control-plane/src/routes/**', [noWeb, noHostAgent, noCompositionRoot]),
  ...layer('control-plane-lib', 'control-plane/src/lib/**', libIsPure),
  ...layer('control-plane-agent', 'control-plane/src/agent/**', agentLayer),
  ...layer('control-plane-queries', 'control-plane/src/queries/**', queriesLayer),
  ...layer('control-plane-presenters', 'control-plane/src/presenters/**', presentersLayer),
  ...layer('control-plane-commands', 'control-plane/src/commands/**', commandsLayer),
  ...room('host-agent', 'host-agent/src/**', [noWeb, noControlPlane], [], [noDockerode]),
  ...room('host-agent-drivers', 'host-agent/src/drivers/**', [noWeb, noControlPlane, noAgentServers], [], [noDockerode]),
  // The one door to Docker (issue 37): only engine.ts holds dockerode.
  {
    name: 'boundaries/host-agent-docker-engine',
    files: ['host-agent/src/drivers/docker/engine.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [noWeb, noControlPlane, noAgentServers, noTests] }] },
  },
  ...room('server-kit', 'server-kit/src/**', [noWeb, noHostAgent, noControlPlane]),
  ...room('contract', 'contract/src/**', [contractOnlyZod]),
  // web/src: one block per folder depth, each forbidding a relative path that climbs out of web/src.
  ...webDepths.map((depth) => ({
    name: `boundaries/web-depth-${depth}`,
    files: [`web/src/${'*/'.repeat(depth)}*.${sourceFiles}`],
    ignores: testFiles,
    rules: { 'no-restricted-imports': ['error', { patterns: [notOutOfWebSrc(depth), webOnlyContract] }] },
  })),
  // web's unit tests may also use tests/support (fixtures), never the servers' source.
  {
    name: 'boundaries/web-tests',
    files: testFiles.map((file) => `web/src/${file}`),
    rules: { 'no-restricted-imports': ['error', { patterns: [noHostAgent, noControlPlane, webOnlyContract] }] },
  },
];

/**
 * Issue 36: an HTTP path is declared once, in contract/src/http; the web app, the routes and the
 * presenters (a file's download address) use the declaration (call/useEndpoint, handle, pathOf),
 * never an '/api/…' literal of their own (tests/lint/import-boundaries.test.ts proves the rule fires).
 */

const API_PATH_MESSAGE = "An HTTP path is declared once, in contract/src/http: use the endpoint (call/useEndpoint in web/src, handle in routes/), not an '/api/' literal.";

const apiPathSelectors = [
  { selector: 'Literal[value=/^\\/api\\//]', message: API_PATH_MESSAGE },
  { selector: 'TemplateLiteral > TemplateElement:first-child[value.raw=/^\\/api\\//]', message: API_PATH_MESSAGE },
];
const apiPathFiles = [`web/src/**/*.${sourceFiles}`, `control-plane/src/routes/**/*.${sourceFiles}`, `control-plane/src/presenters/**/*.${sourceFiles}`];

/**
 * Issue 37: the control plane's long-lived state lives in the services main.ts builds
 * (app-services.ts, handed on through AppDeps), never at the top of a module: no top-level `let`
 * or `var`, no top-level Map/Set/WeakMap/lock/queue/cache (a constant set annotated ReadonlySet
 * or ReadonlyMap is a constant). The process entry points (main.ts, cli/*-cli.ts) run once per
 * process and are exempt. tests/lint/import-boundaries.test.ts proves the rule fires.
 */
const MODULE_STATE_MESSAGE = 'No module-level mutable state in control-plane/src: make it a field of AppServices (app-services.ts) and take it from AppDeps.';
const statefulConstructor = '/^(Map|WeakMap|Set|WeakSet|WeakRef|EventEmitter|AbortController)$|(Lock|Queue|Cache|Slots|Watches|Streams)$/';
const topLevel = ':matches(Program, Program > ExportNamedDeclaration)';

const moduleStateSelectors = [
  { selector: `${topLevel} > VariableDeclaration[kind=/^(let|var)$/]`, message: MODULE_STATE_MESSAGE },
  {
    selector: `${topLevel} > VariableDeclaration > VariableDeclarator[init.type='NewExpression'][init.callee.name=${statefulConstructor}]:not([id.typeAnnotation.typeAnnotation.typeName.name=/^Readonly(Set|Map)$/])`,
    message: MODULE_STATE_MESSAGE,
  },
];
const moduleStateFiles = [`control-plane/src/**/*.${sourceFiles}`];
const entryPoints = ['control-plane/src/main.ts', 'control-plane/src/cli/*-cli.ts'];

/*
 * Issue 37: no SQL in a route file: a route loads through queries/ and writes through commands/
 * (knex called as a function, knex.raw, a transaction handle called, or an objection Model.query()).
 */
const SQL_IN_ROUTE_MESSAGE = 'No SQL in a route file: read through queries/, write through commands/ (parse → load → authorize → act → present).';
const sqlInRouteSelectors = [
  { selector: "CallExpression[callee.type='Identifier'][callee.name=/^(knex|trx|db)$/]", message: SQL_IN_ROUTE_MESSAGE },
  { selector: "CallExpression[callee.type='MemberExpression'][callee.property.name='knex']", message: SQL_IN_ROUTE_MESSAGE },
  { selector: "CallExpression[callee.type='MemberExpression'][callee.object.name=/^(knex|trx|db)$/][callee.property.name=/^(raw|transaction|select|from|insert|update|delete)$/]", message: SQL_IN_ROUTE_MESSAGE },
  { selector: "CallExpression[callee.type='MemberExpression'][callee.object.name=/^[A-Z]/][callee.property.name=/^(query|relatedQuery)$/]", message: SQL_IN_ROUTE_MESSAGE },
];

/*
 * These rules are all no-restricted-syntax, and flat config replaces a rule's options rather than
 * merging them: the files several guard (routes/, presenters/) get one block with every list, last.
 */
const restrictedSyntax = [
  { name: 'http-contract/api-paths', files: apiPathFiles, ignores: testFiles, rules: { 'no-restricted-syntax': ['error', ...apiPathSelectors] } },
  { name: 'control-plane/no-module-state', files: moduleStateFiles, ignores: [...testFiles, ...entryPoints], rules: { 'no-restricted-syntax': ['error', ...moduleStateSelectors] } },
  {
    name: 'control-plane/api-paths-and-module-state',
    files: apiPathFiles.filter((files) => files.startsWith('control-plane/')),
    ignores: testFiles,
    rules: { 'no-restricted-syntax': ['error', ...apiPathSelectors, ...moduleStateSelectors] },
  },
  {
    name: 'control-plane/routes-syntax',
    files: [`control-plane/src/routes/**/*.${sourceFiles}`],
    ignores: testFiles,
    rules: { 'no-restricted-syntax': ['error', ...apiPathSelectors, ...moduleStateSelectors, ...sqlInRouteSelectors] },
  },
];

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'proto/gen/**', 'data/**', '.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  ...importBoundaries,
  ...restrictedSyntax,
);
