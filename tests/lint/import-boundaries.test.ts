/**
 * The import boundaries of eslint.config.js (docs/architecture.md): a fixture breaking each rule,
 * linted with the repository's real config at a path inside the room the rule guards, gets
 * no-restricted-imports with that rule's message; fixtures that obey the rules get no error.
 * The paths need not exist: ESLint picks the config blocks by path.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const eslint = new ESLint({ cwd: root, overrideConfigFile: path.join(root, 'eslint.config.js') });

const messages = {
  noWeb: 'control-plane/src and host-agent/src never import web; shared rules and API shapes live in @devplein/contract.',
  noHostAgent: 'The control plane reaches the host agent over gRPC (@devplein/proto), never through its source.',
  noControlPlane: 'The host agent serves the control plane over gRPC (@devplein/proto), never through its source.',
  noTests: 'Source never imports tests/; test fixtures live in tests/support and only test files use them.',
  noCompositionRoot: 'Only main.ts assembles the app: take AppDeps from app-context.ts, routers go in routes/route-table.ts.',
  noRoutes: "Only app.ts and main.ts import routes/; move what routes share with others to commands/, queries/ or presenters/.",
  noAgentServers: 'host-agent drivers wrap one external system each; they never import jobs/ or services/ (those import drivers).',
  webOnly: 'web/src imports only web/src, the config/ data files, @devplein/contract and npm packages.',
  contractOnlyZod: 'contract/src is zod and types only: it imports zod and its own files (no Node or DOM APIs, no other room).',
  libIsPure: 'lib/ holds small pure helpers: it imports only lib/, the top-level type files (config.ts, http-context.ts) and packages; a helper that needs another room belongs in that room.',
  agentLayer: 'agent/ is the link to the dev servers: it imports only lib/ and the top-level files; what uses its views (queries, presenters, commands, services) imports agent/, not the reverse.',
  queriesLayer: "queries/ are reads with their row types: presenters, commands and services import them, never the reverse (a service type comes through AppDeps['services'] of app-context.ts).",
  presentersLayer: 'presenters/ turn rows (queries/) into contract JSON: they import queries/ and agent/ views, never commands, services or jobs.',
  noDockerode: 'host-agent/src reaches Docker only through drivers/docker/engine.ts (DockerEngine), the one module that holds dockerode.',
  commandsLayer: "commands/ are writes that return rows (the route presents them): they never import presenters, services (take them from AppDeps['services']), jobs or auth.",
} as const;

/** The boundary errors of `code` linted as repository file `file`. */
async function boundaryErrors(file: string, code: string): Promise<{ ruleId: string | null; message: string }[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  expect(result, `${file} was linted`).toBeDefined();
  const problems = result!.messages;
  // A fixture must not be skipped as an ignored file, nor fail to parse.
  expect(problems.filter((problem) => problem.fatal || problem.severity === 1)).toEqual([]);
  return problems.filter((problem) => problem.ruleId === 'no-restricted-imports').map(({ ruleId, message }) => ({ ruleId, message }));
}

const breaking: { rule: keyof typeof messages; file: string; specifier: string }[] = [
  { rule: 'noWeb', file: 'control-plane/src/commands/boundary-fixture.ts', specifier: '../../../web/src/validation/projectRequest.ts' },
  { rule: 'noWeb', file: 'control-plane/src/routes/sites/boundary-fixture.ts', specifier: '@devplein/web' },
  { rule: 'noWeb', file: 'control-plane/src/app-fixture.ts', specifier: '../../web/src/routePaths.ts' },
  { rule: 'noWeb', file: 'host-agent/src/services/boundary-fixture.ts', specifier: '../../../web/src/validation/containerCapabilities.ts' },
  { rule: 'noWeb', file: 'host-agent/src/drivers/docker/boundary-fixture.test.ts', specifier: '../../../../web/src/api/client.ts' },
  { rule: 'noHostAgent', file: 'control-plane/src/agent/boundary-fixture.ts', specifier: '../../../host-agent/src/config.ts' },
  { rule: 'noControlPlane', file: 'host-agent/src/jobs/boundary-fixture.ts', specifier: '@devplein/control-plane' },
  { rule: 'noTests', file: 'control-plane/src/boundary-fixture.ts', specifier: '../../tests/support/fixtures/route-table.ts' },
  { rule: 'noTests', file: 'host-agent/src/drivers/docker/boundary-fixture.ts', specifier: '../../../../tests/support/services/docker.ts' },
  { rule: 'noTests', file: 'server-kit/src/boundary-fixture.ts', specifier: '../../tests/support/clients/ports.ts' },
  { rule: 'noCompositionRoot', file: 'control-plane/src/routes/sites/boundary-fixture.ts', specifier: '../../app.ts' },
  { rule: 'noCompositionRoot', file: 'control-plane/src/routes/boundary-fixture.ts', specifier: '../background-work.ts' },
  { rule: 'noCompositionRoot', file: 'control-plane/src/commands/boundary-fixture.ts', specifier: '../app-services.ts' },
  { rule: 'noCompositionRoot', file: 'control-plane/src/commands/boundary-fixture.ts', specifier: '../main.ts' },
  { rule: 'noRoutes', file: 'control-plane/src/presenters/boundary-fixture.ts', specifier: '../routes/user-dockers/user-dockers.ts' },
  { rule: 'noRoutes', file: 'control-plane/src/jobs/boundary-fixture.ts', specifier: '../routes/route-table.ts' },
  { rule: 'noRoutes', file: 'control-plane/src/presenters/boundary-fixture.test.ts', specifier: '../routes/sites/sites.ts' },
  { rule: 'noCompositionRoot', file: 'control-plane/src/routes/sites/boundary-fixture.test.ts', specifier: '../../app.ts' },
  { rule: 'noAgentServers', file: 'host-agent/src/drivers/docker/boundary-fixture.test.ts', specifier: '../../services/container-service.ts' },
  { rule: 'noAgentServers', file: 'host-agent/src/drivers/docker/boundary-fixture.ts', specifier: '../../jobs/idle-stopper.ts' },
  { rule: 'noAgentServers', file: 'host-agent/src/drivers/proxy/boundary-fixture.ts', specifier: '../../services/proxy-service.ts' },
  { rule: 'noDockerode', file: 'host-agent/src/drivers/docker/boundary-fixture.ts', specifier: 'dockerode' },
  { rule: 'noDockerode', file: 'host-agent/src/services/boundary-fixture.ts', specifier: 'dockerode' },
  { rule: 'noDockerode', file: 'host-agent/src/server.ts', specifier: 'dockerode' },
  { rule: 'webOnly', file: 'web/src/boundary-fixture.ts', specifier: '../vite.config.ts' },
  { rule: 'webOnly', file: 'web/src/layout/boundary-fixture.tsx', specifier: '../../../tests/support/web/users.ts' },
  { rule: 'webOnly', file: 'web/src/pages/UsersPage/boundary-fixture.tsx', specifier: '../../../../control-plane/src/errors.ts' },
  { rule: 'webOnly', file: 'web/src/pages/UsersPage/boundary-fixture.ts', specifier: '../../../../../config/useful-links.json' },
  { rule: 'webOnly', file: 'web/src/api/boundary-fixture.ts', specifier: '@devplein/server-kit' },
  { rule: 'contractOnlyZod', file: 'contract/src/boundary-fixture.ts', specifier: 'node:fs' },
  { rule: 'contractOnlyZod', file: 'contract/src/validation/boundary-fixture.ts', specifier: '../../web/src/routePaths.ts' },
  { rule: 'contractOnlyZod', file: 'contract/src/boundary-fixture.ts', specifier: '@devplein/server-kit/operator-listener' },
  { rule: 'contractOnlyZod', file: 'contract/src/boundary-fixture.test.ts', specifier: 'react' },
  { rule: 'noControlPlane', file: 'web/src/pages/UsersPage/boundary-fixture.test.tsx', specifier: '../../../../control-plane/src/errors.ts' },
  // Issue 37: the control plane's layers (a lower one never imports a higher one).
  { rule: 'libIsPure', file: 'control-plane/src/lib/boundary-fixture.ts', specifier: '../agent/agent-error.ts' },
  { rule: 'libIsPure', file: 'control-plane/src/lib/boundary-fixture.ts', specifier: '../db/database-errors.ts' },
  { rule: 'agentLayer', file: 'control-plane/src/agent/boundary-fixture.ts', specifier: '../presenters/present-deploy.ts' },
  { rule: 'agentLayer', file: 'control-plane/src/agent/boundary-fixture.ts', specifier: '../metrics/metrics.ts' },
  { rule: 'queriesLayer', file: 'control-plane/src/queries/boundary-fixture.ts', specifier: '../presenters/present-team.ts' },
  { rule: 'queriesLayer', file: 'control-plane/src/queries/boundary-fixture.ts', specifier: '../services/thumbnail-capturer.ts' },
  { rule: 'queriesLayer', file: 'control-plane/src/queries/boundary-fixture.ts', specifier: '../commands/container-deps.ts' },
  { rule: 'presentersLayer', file: 'control-plane/src/presenters/boundary-fixture.ts', specifier: '../commands/redeem-signon-ticket.ts' },
  { rule: 'presentersLayer', file: 'control-plane/src/presenters/boundary-fixture.ts', specifier: '../services/container-stats-watches.ts' },
  { rule: 'commandsLayer', file: 'control-plane/src/commands/boundary-fixture.ts', specifier: '../presenters/present-admin-user.ts' },
  { rule: 'commandsLayer', file: 'control-plane/src/commands/boundary-fixture.ts', specifier: '../auth/session-store.ts' },
  { rule: 'commandsLayer', file: 'control-plane/src/commands/boundary-fixture.ts', specifier: '../services/thumbnail-capturer.ts' },
];

describe('import boundaries (eslint.config.js)', () => {
  it.each(breaking)('$file importing $specifier breaks $rule', async ({ rule, file, specifier }) => {
    const errors = await boundaryErrors(file, `import { thing } from '${specifier}';\nexport const used = thing;\n`);
    expect(errors).toEqual([
      { ruleId: 'no-restricted-imports', message: `'${specifier}' import is restricted from being used by a pattern. ${messages[rule]}` },
    ]);
  });

  it('type-only imports and re-exports count too', async () => {
    const code = [
      "import type { UserDocker } from '../../../web/src/api/contracts/dockers.ts';",
      "export { problemsByField } from '../../../web/src/validation/projectRequest.ts';",
      'export type Used = UserDocker;',
      '',
    ].join('\n');
    const errors = await boundaryErrors('control-plane/src/presenters/boundary-fixture.ts', code);
    expect(errors.map((error) => error.message.endsWith(messages.noWeb))).toEqual([true, true]);
  });

  const obeying: { file: string; specifiers: string[] }[] = [
    { file: 'control-plane/src/main-fixture.ts', specifiers: ['./app.ts', './app-services.ts', './background-work.ts', './services/response-streams.ts', './spa/spa.ts', '@devplein/server-kit', 'koa'] },
    { file: 'control-plane/src/routes/sites/boundary-fixture.ts', specifiers: ['../../app-context.ts', '../../queries/projects.ts', '../../presenters/present-site.ts', './schema.ts', '@devplein/proto', 'zod'] },
    { file: 'control-plane/src/routes/boundary-fixture.ts', specifiers: ['./sites/sites.ts', '../app-context.ts'] },
    { file: 'control-plane/src/commands/boundary-fixture.ts', specifiers: ['../app-context.ts', '../agent/agent-fleet.ts', '../queries/container-product-states.ts', '../models/User.ts', '../audit/record-audit.ts'] },
    { file: 'control-plane/src/lib/boundary-fixture.ts', specifiers: ['./container-states.ts', '../config.ts', '../http-context.ts', '@devplein/contract/validation', 'node:crypto'] },
    { file: 'control-plane/src/agent/boundary-fixture.ts', specifiers: ['./agent-error.ts', '../lib/container-states.ts', '../config.ts', '@devplein/proto'] },
    { file: 'control-plane/src/queries/boundary-fixture.ts', specifiers: ['./projects.ts', '../agent/container-views.ts', '../models/User.ts', '../lib/like-pattern.ts', '../app-context.ts'] },
    { file: 'control-plane/src/presenters/boundary-fixture.ts', specifiers: ['./present-deploy.ts', '../queries/users.ts', '../agent/container-views.ts', '../lib/container-states.ts'] },
    { file: 'control-plane/src/services/boundary-fixture.ts', specifiers: ['../commands/queue-deploy.ts', '../presenters/present-deploy.ts', '../queries/deploys.ts', '../agent/agent-fleet.ts'] },
    // Unit tests beside a layer may use what is above it (a real service as a collaborator).
    { file: 'control-plane/src/agent/boundary-fixture.test.ts', specifiers: ['../services/container-notices.ts', './container-event-relay.ts'] },
    { file: 'host-agent/src/drivers/docker/boundary-fixture.ts', specifiers: ['./docker-errors.ts', '../../config.ts', '../../atomic-file.ts', '../proxy/caddy.ts', '@devplein/proto'] },
    { file: 'host-agent/src/drivers/docker/engine.ts', specifiers: ['dockerode', 'node:stream'] },
    { file: 'host-agent/src/drivers/docker/boundary-fixture.test.ts', specifiers: ['dockerode', './engine.ts'] },
    { file: 'host-agent/src/services/boundary-fixture.ts', specifiers: ['../drivers/docker/docker-driver.ts', '../jobs/schedule.ts', '@devplein/server-kit'] },
    { file: 'server-kit/src/boundary-fixture.ts', specifiers: ['./operator-listener.ts', 'node:http'] },
    { file: 'contract/src/validation/boundary-fixture.ts', specifiers: ['./databaseName.ts', '../levels.ts', 'zod'] },
    { file: 'contract/src/boundary-fixture.test.ts', specifiers: ['./realtime.ts', 'vitest'] },
    { file: 'web/src/boundary-fixture.tsx', specifiers: ['./routePaths.ts', './api/client.ts', '@devplein/contract', 'react'] },
    { file: 'web/src/pages/UsefulLinksPage/boundary-fixture.ts', specifiers: ['../../../../config/useful-links.json', '../../components/Icon.tsx', './useful-links.ts', '@devplein/contract/validation'] },
    { file: 'web/src/layout/boundary-fixture.test.tsx', specifiers: ['../../../tests/support/web/users.ts', './roles.ts', '@testing-library/react'] },
    // Unit tests beside the code may use tests/support (fakes, fixtures); production files may not.
    { file: 'control-plane/src/ssh/boundary-fixture.test.ts', specifiers: ['../../../tests/support/fixtures/ssh-keys.ts', './ssh-public-key.ts'] },
    { file: 'host-agent/src/jobs/boundary-fixture.test.ts', specifiers: ['../../../tests/support/services/docker.ts', './idle-stopper.ts'] },
    { file: 'server-kit/src/boundary-fixture.test.ts', specifiers: ['../../tests/support/clients/ports.ts', './operator-listener.ts'] },
  ];

  it.each(obeying)('$file importing its allowed rooms gets no error', async ({ file, specifiers }) => {
    const code = specifiers.map((specifier, index) => `import * as used${index} from '${specifier}';\nexport { used${index} };\n`).join('');
    expect(await boundaryErrors(file, code)).toEqual([]);
  });
});

const API_PATH_MESSAGE = "An HTTP path is declared once, in contract/src/http: use the endpoint (call/useEndpoint in web/src, handle in routes/), not an '/api/' literal.";

/** The '/api/' literal errors of `code` linted as repository file `file`. */
async function apiPathErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  expect(result, `${file} was linted`).toBeDefined();
  expect(result!.messages.filter((problem) => problem.fatal || problem.severity === 1)).toEqual([]);
  return result!.messages.filter((problem) => problem.ruleId === 'no-restricted-syntax').map((problem) => problem.message);
}

describe('HTTP paths are declared once (issue 36, eslint.config.js)', () => {
  it.each([
    ['web/src/pages/SitesPage/api-path-fixture.tsx', "export const address = '/api/sites';\n"],
    ['web/src/api/queries/api-path-fixture.ts', 'export const address = (id: number) => `/api/user/ssh_keys/${id}`;\n'],
    ['web/src/components/api-path-fixture.tsx', 'export const Link = () => <a href="/api/admin/exports/users.csv">CSV</a>;\n'],
    ['control-plane/src/routes/sites/api-path-fixture.ts', "export const route = '/api/sites';\n"],
  ])('%s typing an /api/ path of its own gets the rule', async (file, code) => {
    expect(await apiPathErrors(file, code)).toEqual([API_PATH_MESSAGE]);
  });

  it.each([
    ['contract/src/http/api-path-fixture.ts', "export const path = '/api/sites';\n"],
    ['web/src/pages/SitesPage/api-path-fixture.test.tsx', "export const mocked = '/api/sites';\n"],
    ['web/src/pages/SitesPage/api-path-fixture.tsx', "export const page = '/sites/api/';\n"],
  ])('%s may (the declaration, a unit test, no /api/ path)', async (file, code) => {
    expect(await apiPathErrors(file, code)).toEqual([]);
  });
});

const MODULE_STATE_MESSAGE = 'No module-level mutable state in control-plane/src: make it a field of AppServices (app-services.ts) and take it from AppDeps.';

describe('no module-level mutable state in the control plane (issue 37, eslint.config.js)', () => {
  it.each([
    ['control-plane/src/commands/module-state-fixture.ts', "import { KeyedLock } from '@devplein/server-kit/keyed-lock';\nexport const perUser = new KeyedLock<number>();\n"],
    ['control-plane/src/services/module-state-fixture.ts', 'const queues = new WeakMap<object, string[]>();\nexport const queueOf = (key: object) => queues.get(key);\n'],
    ['control-plane/src/auth/module-state-fixture.ts', 'const discovered = new Map<string, string>();\nexport const known = (issuer: string) => discovered.get(issuer);\n'],
    ['control-plane/src/db/module-state-fixture.ts', 'let aligned = false;\nexport const align = () => (aligned = true);\n'],
    ['control-plane/src/app-fixture.ts', 'export const openStreams = new Set<string>();\n'],
    ['control-plane/src/presenters/module-state-fixture.ts', 'const lastSent = new Map<string, string>();\nexport const last = (name: string) => lastSent.get(name);\n'],
  ])('%s holding state at the top of the module gets the rule', async (file, code) => {
    expect(await apiPathErrors(file, code)).toEqual([MODULE_STATE_MESSAGE]);
  });

  it('a route file gets both no-restricted-syntax rules (flat config would keep only one list)', async () => {
    const code = "export const route = '/api/sites';\nexport const seen = new Set<number>();\n";
    expect(await apiPathErrors('control-plane/src/routes/sites/module-state-fixture.ts', code)).toEqual([API_PATH_MESSAGE, MODULE_STATE_MESSAGE]);
  });

  it.each([
    ['control-plane/src/auth/module-state-fixture.ts', "const SAFE: ReadonlySet<string> = new Set(['GET']);\nexport const safe = (method: string) => SAFE.has(method);\n"],
    ['control-plane/src/services/module-state-fixture.ts', 'export class Queue {\n  private readonly waiting = new Map<string, number>();\n  size = () => this.waiting.size;\n}\n'],
    ['control-plane/src/commands/module-state-fixture.ts', 'export function once() {\n  let done = false;\n  return () => (done ? false : (done = true));\n}\n'],
    ['control-plane/src/main.ts', 'let stopping = false;\nexport const stop = () => (stopping = true);\n'],
    ['control-plane/src/cli/backup-cli.ts', 'let invocation: string;\ninvocation = process.argv[2] ?? "";\nexport { invocation };\n'],
    ['control-plane/src/commands/module-state-fixture.test.ts', 'const seen = new Set<number>();\nexport const has = (id: number) => seen.has(id);\n'],
  ])('%s may (a constant, state inside a class or function, an entry point, a unit test)', async (file, code) => {
    expect(await apiPathErrors(file, code)).toEqual([]);
  });
});

const SQL_IN_ROUTE_MESSAGE = 'No SQL in a route file: read through queries/, write through commands/ (parse → load → authorize → act → present).';

describe('no SQL in route files (issue 37, eslint.config.js)', () => {
  it.each([
    ['control-plane/src/routes/admin-exports/sql-fixture.ts', "export const cohortOf = (knex: (table: string) => { where: (q: object) => unknown }, id: number) => knex('groups').where({ id });\n"],
    ['control-plane/src/routes/sites/sql-fixture.ts', "export const load = (deps: { knex: (table: string) => unknown }) => deps.knex('projects');\n"],
    ['control-plane/src/routes/levels/sql-fixture.ts', "export const count = (knex: { raw: (sql: string) => unknown }) => knex.raw('select count(*) from levels');\n"],
    ['control-plane/src/routes/licenses/sql-fixture.ts', "declare const License: { query: (db: unknown) => unknown };\nexport const all = (db: unknown) => License.query(db);\n"],
  ])('%s querying the database itself gets the rule', async (file, code) => {
    expect(await apiPathErrors(file, code)).toEqual([SQL_IN_ROUTE_MESSAGE]);
  });

  it.each([
    ['control-plane/src/routes/admin-exports/sql-fixture.ts', "declare function findGroup(knex: unknown, id: number): Promise<unknown>;\nexport const load = (deps: { knex: unknown }, id: number) => findGroup(deps.knex, id);\n"],
    ['control-plane/src/queries/sql-fixture.ts', "export const load = (knex: (table: string) => unknown) => knex('groups');\n"],
    ['control-plane/src/routes/sites/sql-fixture.test.ts', "export const load = (knex: (table: string) => unknown) => knex('projects');\n"],
  ])('%s may (a route handing knex to a query, a query, a unit test)', async (file, code) => {
    expect(await apiPathErrors(file, code)).toEqual([]);
  });
});
