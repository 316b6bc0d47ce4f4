/**
 * Every route of the control plane × every role, against the expected-access table below.
 *
 * The list of routes comes from the real route table (`appRouters(deps)` in
 * control-plane/src/routes/route-table.ts, each @koa/router layer's methods and path), so a new route without an entry here fails this
 * test, and an entry whose route is gone fails too. Each route is called on the real control plane
 * (fake agent) as anonymous, not activated, student, developer, docent (admin, not developer) and
 * admin (admin + developer), with ids that do not exist and an empty JSON body: a role that gets
 * through then sees 404 or 422 (or 2xx for a route without an id), never 401/403 — and a role that
 * may not must get 401/403 before any 404 or 422: the server decides by policy first.
 *
 * Also here: "someone else's resource → 404" for every route with an id of a user-owned record,
 * and "every unsafe route without a CSRF token → 419".
 *
 * ROUTES_ROLES_PRINT=1 prints the table as observed, to paste after a deliberate change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable, type RouteEntry } from '../../support/fixtures/route-table.ts';
import { ENDPOINTS } from '@devplein/contract/http/all';
import { endpointKey } from '@devplein/contract/http/endpoint';
import { HttpSession } from '../../support/clients/http-session.ts';
import { ed25519PublicKey } from '../../support/fixtures/ssh-keys.ts';
import { ADMIN, DEVELOPER, DOCENT, IMAGE, NOT_ACTIVATED, STUDENT, startHostingStack, type HostingStack } from '../../support/stacks/hosting-stack.ts';

/** What a role gets on a route: through (2xx, or a 4xx other than 401/403), 401 or 403. */
type Outcome = 'ok' | 401 | 403;
const ROLES = ['anonymous', 'notActivated', 'student', 'developer', 'docent', 'admin'] as const;
type Role = (typeof ROLES)[number];

/** Outcomes in ROLES order: anonymous, not activated, student, developer, docent (admin), admin + developer. */
type Row = readonly [Outcome, Outcome, Outcome, Outcome, Outcome, Outcome];

// Shorthands for the common rows.
const PUBLIC: Row = ['ok', 'ok', 'ok', 'ok', 'ok', 'ok'];
const SIGNED_IN: Row = [401, 'ok', 'ok', 'ok', 'ok', 'ok'];
const ACTIVE: Row = [401, 403, 'ok', 'ok', 'ok', 'ok'];
const DEVELOPERS: Row = [401, 403, 403, 'ok', 403, 'ok'];
const ADMINS: Row = [401, 403, 403, 403, 'ok', 'ok'];

/**
 * The expected-access table: `METHOD /path/:param` → outcome per role. Keep it in the order of
 * appRouters. A route missing here fails the test with a message naming it.
 */
const EXPECTED: Record<string, Row> = {
  // user
  'GET /api/user': SIGNED_IN,
  'GET /api/user/:id': ACTIVE,
  // admin: agent
  'GET /api/admin/agent': ADMINS,
  // admin: status of the dev servers
  'GET /api/admin/status': ADMINS,
  // admin: the teachers' overview (host samples, idle auto-stops, projects per cohort)
  'GET /api/admin/overview/hosts': ADMINS,
  'GET /api/admin/overview/auto-stops': ADMINS,
  'GET /api/admin/overview/cohorts': ADMINS,
  'GET /api/admin/overview/top-containers': ADMINS,
  // admin: the dev servers' links (invite, list, revoke)
  'GET /api/admin/agents': ADMINS,
  'POST /api/admin/agents/invitations': ADMINS,
  'POST /api/admin/agents/:name/revoke': ADMINS,
  // a dev server joins: no session, the one-time join token is the authority (none here: 401 for every role)
  'GET /api/agents/ca': PUBLIC,
  'POST /api/agents/join': [401, 401, 401, 401, 401, 401],
  // a joined dev server renews its certificate: no session, its current certificate and its key's
  // signature are the authority, the same for every role (none here: 422, counted as through)
  'POST /api/agents/renew': PUBLIC,
  // broadcasting (realtime authorization)
  'POST /broadcasting/auth': ACTIVE,
  'POST /broadcasting/user-auth': ACTIVE,
  // health, the websites wall (no sign-in, spec §1), thumbnails
  'GET /healthz': PUBLIC,
  'GET /api/sites': PUBLIC,
  'GET /misc/browserimg2/small/:file': PUBLIC,
  // levels (students)
  'GET /api/level/categories/index': ACTIVE,
  'GET /api/level/files/:fileId': ACTIVE,
  'GET /api/level/:id': ACTIVE,
  // ssh keys (developers only, spec §1)
  'GET /api/user/ssh_keys': DEVELOPERS,
  'POST /api/user/ssh_keys': DEVELOPERS,
  'DELETE /api/user/ssh_keys/:id': DEVELOPERS,
  // admin: levels, categories, content, courses
  'GET /api/admin/level/categories': ADMINS,
  'GET /api/level/categories/show/:id': ADMINS,
  'POST /api/level/categories/store': ADMINS,
  'POST /api/level/categories/update/:id': ADMINS,
  'GET /api/level/content/index': ADMINS,
  'GET /api/level/content/index-by-category/:categoryId': ADMINS,
  'GET /api/level/content/show/:id': ADMINS,
  'POST /api/level/content/store': ADMINS,
  'POST /api/level/content/update/:id': ADMINS,
  'GET /api/level/content/:id/courses': ADMINS,
  'POST /api/level/content/:id/courses': ADMINS,
  'PUT /api/level/courses/:courseId': ADMINS,
  'DELETE /api/level/courses/:courseId': ADMINS,
  'POST /api/level/courses/:courseId/move': ADMINS,
  'POST /api/level/courses/:courseId/texts': ADMINS,
  'PUT /api/level/courses/:courseId/texts/:textId': ADMINS,
  'DELETE /api/level/courses/:courseId/texts/:textId': ADMINS,
  'POST /api/level/courses/:courseId/texts/:textId/move': ADMINS,
  'POST /api/level/courses/:courseId/files': ADMINS,
  'PUT /api/level/courses/:courseId/files/:fileId': ADMINS,
  'DELETE /api/level/courses/:courseId/files/:fileId': ADMINS,
  'POST /api/level/courses/:courseId/files/:fileId/move': ADMINS,
  'GET /api/users/by-group/:groupId': ADMINS,
  'POST /api/level/update/multiple': ADMINS,
  'POST /api/level/update-status': ADMINS,
  'POST /api/level/store': ADMINS,
  // admin: projects
  'GET /api/admin/projects': ADMINS,
  'PUT /api/admin/projects/:id': ADMINS,
  'DELETE /api/admin/projects/:id': ADMINS,
  // admin: users, teams, groups
  'GET /api/admin/users': ADMINS,
  'PUT /api/admin/users/:id': ADMINS,
  'PUT /api/admin/users/:id/developer': ADMINS,
  'DELETE /api/admin/users/:id': ADMINS,
  // admin: spreadsheets (issue 22)
  'GET /api/admin/exports/users.csv': ADMINS,
  'GET /api/admin/exports/levels/:groupId.csv': ADMINS,
  'GET /api/admin/teams': ADMINS,
  'POST /api/admin/teams': ADMINS,
  'GET /api/admin/teams/:id': ADMINS,
  'PUT /api/admin/teams/:id': ADMINS,
  'GET /api/admin/groups': ADMINS,
  'POST /api/admin/groups': ADMINS,
  'GET /api/admin/groups/:id': ADMINS,
  'PUT /api/admin/groups/:id': ADMINS,
  'DELETE /api/admin/groups/:id/users/:userId': ADMINS,
  // user search
  'POST /api/users/search': ACTIVE,
  // licences
  'GET /api/admin/licenses': ADMINS,
  'PUT /api/admin/licenses/:id': ADMINS,
  'GET /api/user/licenses': ACTIVE,
  'POST /api/user/licenses': ACTIVE,
  'DELETE /api/user/licenses/:id': ACTIVE,
  // introducees (the Meelopers page)
  'GET /api/admin/introduction': ADMINS,
  'POST /api/admin/introduction': ADMINS,
  'DELETE /api/admin/introduction/:id': ADMINS,
  // project requests
  'GET /api/dockers': ACTIVE,
  'POST /api/user/project': ACTIVE,
  'GET /api/user/project/:id': ACTIVE,
  'PUT /api/user/project/:id': ACTIVE,
  'DELETE /api/user/project/:id': ACTIVE,
  // audit
  'GET /api/admin/audit': ADMINS,
  'GET /api/admin/audit/facets': ADMINS,
  // the user's containers
  'GET /api/user/dockers': ACTIVE,
  'POST /api/user/dockers': ACTIVE,
  'PUT /api/user/dockers/:projectId': ACTIVE,
  'GET /api/user/container/:name': ACTIVE,
  'GET /api/user/container/:name/follow': ACTIVE,
  'GET /api/user/container/:name/stats': ACTIVE,
  'POST /api/user/dockers_images': ACTIVE,
  // The spec's GET changed state: 405 for everyone now (DESIGN.md, deviations); POST resets.
  'GET /api/wordpress/passwordreset/:project': PUBLIC,
  'POST /api/wordpress/passwordreset/:project': ACTIVE,
  // admin: images and containers
  'GET /api/admin/dockers/images': ADMINS,
  'POST /api/admin/dockers/images': ADMINS,
  'PATCH /api/admin/dockers/images/:id': ADMINS,
  'DELETE /api/admin/dockers/images/:id': ADMINS,
  'GET /api/admin/dockers': ADMINS,
  'POST /api/admin/dockers/bulk': ADMINS,
  'GET /api/admin/dockers/:name': ADMINS,
  'PUT /api/admin/dockers/:name': ADMINS,
  'DELETE /api/admin/dockers/:name': ADMINS,
  'PUT /api/admin/dockers/:name/owner': ADMINS,
  'GET /api/admin/dockers/:id/screenshot': ADMINS,
  'POST /api/admin/dockers/:id/screenshot': ADMINS,
  // databases and VPN (developers)
  'GET /api/user/databases': DEVELOPERS,
  'POST /api/user/databases': DEVELOPERS,
  'DELETE /api/user/databases/:id': DEVELOPERS,
  'GET /api/vpn': DEVELOPERS,
  'POST /api/vpn': DEVELOPERS,
  'GET /api/vpn/qr': DEVELOPERS,
  'GET /api/vpn/:identifier': DEVELOPERS,
  'GET /api/user/databases/:id/admin': DEVELOPERS,
  // phpMyAdmin's signon script: server to server, a shared secret instead of a session
  'POST /api/db-admin/signon': PUBLIC,
  // sign-in: the start and the provider's way back redirect anyone (grant keeps its state in the
  // session); the finish with no sign-in in progress is 401 for every role
  'GET /auth/:provider': PUBLIC,
  'GET /auth/:provider/callback': PUBLIC,
  'GET /session/start': [401, 401, 401, 401, 401, 401],
  // logout: GET answers 405 (a link must not sign anyone out); POST with the CSRF token, signed in or not
  'GET /logout': PUBLIC,
  'POST /logout': PUBLIC,
  // git deploys (issue 23): the school's settings, and per project for its members and admins
  'GET /api/deploy/settings': ACTIVE,
  'GET /api/user/dockers/:projectId/deploys': ACTIVE,
  'POST /api/user/dockers/:projectId/deploys': ACTIVE,
  'GET /api/user/dockers/:projectId/deploys/:deployId': ACTIVE,
  'PUT /api/user/dockers/:projectId/deploy-settings': ACTIVE,
  'POST /api/user/dockers/:projectId/webhook-secret': ACTIVE,
  // makes the project's deploy key on its dev server (issue 35: the panel's GET makes none)
  'POST /api/user/dockers/:projectId/deploy-key': ACTIVE,
  // a git server's push: no session, the signature with the project's webhook secret is the authority (none here: 401 for every role)
  'POST /api/hooks/deploy/:projectId': [401, 401, 401, 401, 401, 401],
  // the declared endpoints as OpenAPI 3.1 (issue 36), for admins
  'GET /api/openapi.json': ADMINS,
};

/** Routes that end the session they are called with: called with a throwaway session per role. */
const ENDS_SESSION = new Set(['POST /logout']);

/** Values for route parameters: records that do not exist (so nothing real is changed). */
const PARAM_VALUES: Record<string, string> = {
  id: '987654',
  fileId: '987654',
  categoryId: '987654',
  courseId: '987654',
  textId: '987654',
  groupId: '987654',
  userId: '987654',
  projectId: '987654',
  deployId: '987654',
  project: '987654',
  name: 'bestaat-niet',
  file: 'bestaat-niet_s.png',
  identifier: 'bestaat-niet',
  // The one provider: another name is only the web app's page.
  provider: 'school',
};

function fillParams(path: string, values: Record<string, string> = PARAM_VALUES): string {
  return path.replace(/:([A-Za-z_]+)/g, (_match, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`no test value for route parameter :${name} in ${path}; add it to PARAM_VALUES`);
    return encodeURIComponent(value);
  });
}

const outcomeOf = (status: number): Outcome => (status === 401 ? 401 : status === 403 ? 403 : 'ok');

let stack: HostingStack;
let sessions: Record<Role, HttpSession>;
const routes = routeTable();

beforeAll(async () => {
  stack = await startHostingStack();
  sessions = {
    anonymous: await stack.anonymous(),
    notActivated: await stack.as(NOT_ACTIVATED),
    student: await stack.as(STUDENT),
    developer: await stack.as(DEVELOPER),
    docent: await stack.as(DOCENT),
    admin: await stack.as(ADMIN),
  };
}, 90_000);

afterAll(async () => {
  await stack?.stop();
});

const EMAIL_OF: Record<Exclude<Role, 'anonymous'>, string> = {
  notActivated: NOT_ACTIVATED,
  student: STUDENT,
  developer: DEVELOPER,
  docent: DOCENT,
  admin: ADMIN,
};

/** A new session of `role`, for a route that ends the one it is called with. */
async function throwaway(role: Role): Promise<HttpSession> {
  const session = new HttpSession(stack.app.url);
  if (role === 'anonymous') await session.primeCsrf();
  else await session.signIn(EMAIL_OF[role]);
  return session;
}

/** One call as the web app makes it (JSON, CSRF token); GETs without body, writes with `{}`. */
async function call(session: HttpSession, route: RouteEntry, path = fillParams(route.path)): Promise<Response> {
  const response = await session.api(route.method, path, route.method === 'GET' ? undefined : {});
  // A follow/stream route may keep the connection open: the status is all we need.
  await response.body?.cancel().catch(() => undefined);
  return response;
}

describe('routes × roles', { timeout: 120_000 }, () => {
  it('the expected-access table names exactly the routes of the route table', () => {
    const keys = new Set(routes.map((route) => route.key));
    const missing = [...keys].filter((key) => !(key in EXPECTED));
    const stale = Object.keys(EXPECTED).filter((key) => !keys.has(key));
    expect(missing, `routes without an entry in EXPECTED of tests/integration/system/routes-roles.test.ts: ${missing.join(', ')}`).toEqual([]);
    expect(stale, `EXPECTED entries whose route no longer exists: ${stale.join(', ')}`).toEqual([]);
  });

  // Issue 36: every endpoint is declared once in contract/src/http. The areas move one by one;
  // until the last has, the routes still registered by hand are counted, and the count may only
  // go down (a new hand-written route fails here: declare it in the contract instead).
  const UNDECLARED_AT_MOST = 0;

  it('every endpoint the contract declares is a registered route with an entry in the table', () => {
    const keys = new Set(routes.map((route) => route.key));
    const declared = ENDPOINTS.map(endpointKey);
    expect(declared.filter((key) => !keys.has(key)), 'declared in contract/src/http but registered by no router').toEqual([]);
    expect(declared.filter((key) => !(key in EXPECTED)), 'declared but without a row in EXPECTED').toEqual([]);
    expect(new Set(declared).size, 'an endpoint declared twice').toBe(declared.length);
  });

  it('every registered route is declared in the contract (the areas not moved yet counted, never more)', () => {
    const declared = new Set(ENDPOINTS.map(endpointKey));
    const undeclared = routes.filter((route) => !declared.has(route.key)).map((route) => route.key);
    expect(undeclared.length, `routes registered by hand, not through contract/src/http: ${undeclared.join(', ')}`).toBeLessThanOrEqual(UNDECLARED_AT_MOST);
  });

  it('every route answers every role as the table says, policy before 404/422, never a 5xx', async () => {
    const mismatches: string[] = [];
    const observed: string[] = [];
    for (const route of routes) {
      const expected = EXPECTED[route.key];
      const row: Outcome[] = [];
      for (const [index, role] of ROLES.entries()) {
        const session = ENDS_SESSION.has(route.key) ? await throwaway(role) : sessions[role];
        const response = await call(session, route);
        const outcome = outcomeOf(response.status);
        row.push(outcome);
        if (response.status >= 500 && response.status !== 501) mismatches.push(`${route.key} as ${role}: ${response.status}`);
        if (response.status === 419) mismatches.push(`${route.key} as ${role}: 419 although the CSRF token was sent`);
        if (expected && expected[index] !== outcome) {
          mismatches.push(`${route.key} as ${role}: expected ${expected[index]}, got ${response.status}`);
        }
      }
      observed.push(`  '${route.key}': [${row.map((o) => (o === 'ok' ? "'ok'" : String(o))).join(', ')}],`);
    }
    if (process.env.ROUTES_ROLES_PRINT) process.stdout.write(`\nobserved access table:\n${observed.join('\n')}\n`);
    expect(mismatches).toEqual([]);
  });
});

/** Routes that never take a CSRF token: other protocols' endpoints (server to server). */
const CSRF_EXEMPT = new Set(['POST /api/db-admin/signon', 'POST /api/agents/join', 'POST /api/agents/renew', 'POST /api/hooks/deploy/:projectId']);
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

describe('unsafe routes without a CSRF token', { timeout: 120_000 }, () => {
  it('answer 419 with a JSON message, for a signed-in session, before anything else', async () => {
    const admin = sessions.admin;
    const wrong: string[] = [];
    for (const route of routes.filter((entry) => UNSAFE.has(entry.method) && !CSRF_EXEMPT.has(entry.key))) {
      for (const token of ['', 'not-the-token']) {
        const response = await admin.api(route.method, fillParams(route.path), {}, { 'X-CSRF-TOKEN': token });
        const text = await response.text();
        let message: unknown;
        try {
          message = (JSON.parse(text) as { message?: unknown }).message;
        } catch {
          message = undefined;
        }
        if (response.status !== 419 || typeof message !== 'string' || !response.headers.get('content-type')?.includes('application/json')) {
          wrong.push(`${route.key} with token '${token}': ${response.status} ${text.slice(0, 80)}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    // The session itself still works afterwards.
    expect((await admin.api('GET', '/api/user')).status).toBe(200);
  });
});

/**
 * Routes with an id of a record that belongs to one user: another user (developer or student)
 * gets 404, exactly as for an id that does not exist. Every route under /api/user, /api/vpn and
 * /api/wordpress with a parameter must be listed here or in NOT_OWNED, so a new one is not missed.
 */
const OWNED_ROUTES = [
  'DELETE /api/user/ssh_keys/:id',
  'DELETE /api/user/licenses/:id',
  'GET /api/user/project/:id',
  'PUT /api/user/project/:id',
  'DELETE /api/user/project/:id',
  'PUT /api/user/dockers/:projectId',
  'GET /api/user/dockers/:projectId/deploys',
  'POST /api/user/dockers/:projectId/deploys',
  'GET /api/user/dockers/:projectId/deploys/:deployId',
  'PUT /api/user/dockers/:projectId/deploy-settings',
  'POST /api/user/dockers/:projectId/webhook-secret',
  'POST /api/user/dockers/:projectId/deploy-key',
  'GET /api/user/container/:name',
  'GET /api/user/container/:name/follow',
  'GET /api/user/container/:name/stats',
  'POST /api/wordpress/passwordreset/:project',
  'DELETE /api/user/databases/:id',
  'GET /api/user/databases/:id/admin',
  'GET /api/vpn/:identifier',
] as const;
/** Routes with a parameter under those prefixes that address nothing private. */
const NOT_OWNED = new Set([
  'GET /api/user/:id' /* profiles are visible to every activated user (spec §6) */,
  'GET /api/wordpress/passwordreset/:project' /* answers 405 to everyone: the reset is a POST */,
]);

describe("someone else's resource", { timeout: 120_000 }, () => {
  it('lists every user-owned route with an id', () => {
    const withParams = routes
      .filter((route) => /^\/api\/(user|vpn|wordpress)\//.test(route.path) && route.path.includes(':'))
      .map((route) => route.key);
    const unclassified = withParams.filter((key) => !(OWNED_ROUTES as readonly string[]).includes(key) && !NOT_OWNED.has(key));
    expect(unclassified, 'add these to OWNED_ROUTES (or NOT_OWNED with a reason)').toEqual([]);
    const stale = OWNED_ROUTES.filter((key) => !routes.some((route) => route.key === key));
    expect(stale, 'OWNED_ROUTES entries whose route no longer exists').toEqual([]);
  });

  it("answers 404 to another developer and to a student for every id of the developer's records, and changes nothing", async () => {
    const { knex } = stack.database;
    const owner = sessions.developer;
    const ownerId = await stack.userId(DEVELOPER);
    const other = await knex('users')
      .where({ developer: true, admin: false })
      .whereNotNull('email_verified_at')
      .whereNull('disabled_at')
      .whereNot({ email: DEVELOPER })
      .first<{ email: string } | undefined>('email');
    if (!other) throw new Error('the seed has no second developer');
    const otherDeveloper = await stack.as(other.email);

    // The owner's records, made as the owner would.
    expect((await owner.json('POST', '/api/user/ssh_keys', { name: 'eigen', sshKey: ed25519PublicKey('eigen@laptop') })).status).toBe(200);
    expect((await owner.json('POST', '/api/user/licenses', { description: 'Voor het eindproject van dit jaar', license: 'JetBrains' })).status).toBe(200);
    expect((await owner.json('POST', '/api/user/databases', { db: 'geh' })).status).toBe(200);
    expect((await owner.json('POST', '/api/vpn')).status).toBeLessThan(300);
    const project = await stack.project({ name: 'andermans-site', image: IMAGE.wordpress, members: [DEVELOPER] });
    expect((await owner.json('POST', '/api/user/dockers', { id: project.id })).status).toBe(200);
    // A repository (after the create, so no deploy is queued) and one deploy of it: the deploy routes answer the owner.
    await knex('projects').where({ id: project.id }).update({ repro: 'https://git.devplein.test/eigen/site.git' });
    const [deploy] = await knex('project_deploys')
      .insert({ project_id: project.id, status: 'deployed', trigger: 'button', commit_hash: 'd'.repeat(40), requested_by: ownerId, finished_at: new Date() })
      .returning<{ id: number }[]>('id');
    const deployId = String(deploy?.id);
    expect((await owner.json('GET', `/api/user/dockers/${project.id}/deploys/${deployId}`)).status).toBe(200);

    const idOf = async (table: string): Promise<string> => {
      const row = await knex(table).where({ user_id: ownerId }).orderBy('id', 'desc').first<{ id: number } | undefined>('id');
      if (!row) throw new Error(`no ${table} row of the owner`);
      return String(row.id);
    };
    const vpn = await knex('vpn_configs').where({ user_id: ownerId }).first<{ identifier: string }>('identifier');
    const values: Record<(typeof OWNED_ROUTES)[number], Record<string, string>> = {
      'DELETE /api/user/ssh_keys/:id': { id: await idOf('ssh_keys') },
      'DELETE /api/user/licenses/:id': { id: await idOf('licenses') },
      'GET /api/user/project/:id': { id: String(project.id) },
      'PUT /api/user/project/:id': { id: String(project.id) },
      'DELETE /api/user/project/:id': { id: String(project.id) },
      'PUT /api/user/dockers/:projectId': { projectId: String(project.id) },
      'GET /api/user/dockers/:projectId/deploys': { projectId: String(project.id) },
      'POST /api/user/dockers/:projectId/deploys': { projectId: String(project.id) },
      'GET /api/user/dockers/:projectId/deploys/:deployId': { projectId: String(project.id), deployId },
      'PUT /api/user/dockers/:projectId/deploy-settings': { projectId: String(project.id) },
      'POST /api/user/dockers/:projectId/webhook-secret': { projectId: String(project.id) },
      'POST /api/user/dockers/:projectId/deploy-key': { projectId: String(project.id) },
      'GET /api/user/container/:name': { name: project.name },
      'GET /api/user/container/:name/follow': { name: project.name },
      'GET /api/user/container/:name/stats': { name: project.name },
      'POST /api/wordpress/passwordreset/:project': { project: String(project.id) },
      'DELETE /api/user/databases/:id': { id: await idOf('databases') },
      'GET /api/user/databases/:id/admin': { id: await idOf('databases') },
      'GET /api/vpn/:identifier': { identifier: vpn.identifier },
    };
    const counts = async (): Promise<number[]> =>
      Promise.all(['ssh_keys', 'licenses', 'databases', 'vpn_configs'].map(async (table) => Number((await knex(table).where({ user_id: ownerId }).count({ n: '*' }))[0]?.n)));
    const before = await counts();
    const projectBefore = await knex('projects').where({ id: project.id }).first();

    const wrong: string[] = [];
    for (const key of OWNED_ROUTES) {
      const route = routes.find((entry) => entry.key === key);
      if (!route) continue;
      // A valid action, so the answer is about the record and not about the query.
      const query = key === 'PUT /api/user/dockers/:projectId' ? '?action=restart' : '';
      const path = `${fillParams(route.path, values[key])}${query}`;
      const attackers: Array<[string, HttpSession]> = [['another developer', otherDeveloper]];
      // Databases, VPN and SSH keys are for developers only: a student is stopped by policy (403) first.
      if (!/ssh_keys|databases|vpn/.test(key)) attackers.push(['a student', sessions.student]);
      for (const [who, session] of attackers) {
        const response = await call(session, route, path);
        if (response.status !== 404) wrong.push(`${key} (${path}) as ${who}: ${response.status}`);
      }
    }
    expect(wrong).toEqual([]);

    // Nothing of the owner's changed, and the owner still sees the records.
    expect(await counts()).toEqual(before);
    expect(await knex('projects').where({ id: project.id }).first()).toEqual(projectBefore);
    expect((await owner.api('GET', `/api/user/project/${project.id}`)).status).toBe(200);
    expect((await owner.api('GET', `/api/user/container/${project.name}`)).status).toBe(200);
    expect((await owner.raw(`/api/vpn/${vpn.identifier}`)).status).toBe(200);
  });
});
