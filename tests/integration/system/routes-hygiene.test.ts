/**
 * Two rules over the real route table (tests/support/fixtures/route-table.ts), so a new route is held to
 * them without anyone adding it here:
 *
 * - No GET changes state. Every GET route is called with the seeded data and records that
 *   exist (a student's WordPress site with its container, a developer's database, VPN
 *   configuration and SSH key, an introducee, a thumbnail) by an admin, a developer, a student,
 *   an anonymous visitor with cookies and one without; after each call no row of any table may
 *   differ and the fake agent may have had no write call. The page paths a browser GETs (the
 *   single-page app and /logout) are called the same way.
 * - Every answer of /api and /broadcasting to a signed-in session carries
 *   `Cache-Control: no-store`, whatever its status; the secret-bearing ones are also called
 *   for real (2xx) and checked one by one. Hashed assets and thumbnails keep their long caching.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable, type RouteEntry } from '../../support/fixtures/route-table.ts';
import { HttpSession } from '../../support/clients/http-session.ts';
import { fakePng } from '../../support/fakes/fake-agent.ts';
import { ed25519PublicKey } from '../../support/fixtures/ssh-keys.ts';
import { ADMIN, DEVELOPER, IMAGE, STUDENT, startHostingStack, type HostingStack } from '../../support/stacks/hosting-stack.ts';

const SIGNON_SECRET = randomBytes(24).toString('hex');
const WORDPRESS_SITE = 'hygiene-wp';
const WALL_SITE = 'hygiene-wall';
const INTRODUCEE = 'hygienemeeloper';

/** Agent calls that only read: anything else the fake agent records is a write. */
const AGENT_READS = new Set([
  'getInfo',
  'getHostStats',
  'health',
  'getServerInfo',
  'getSshAccess',
  'listContainers',
  'listDatabases',
  'listPeers',
  'listRoutes',
  'getContainerLogs',
  'followContainerLogs',
  'watchContainerEvents',
  'getContainerStats',
  'watchContainerStats',
  'listContainerStats',
]);

/** Whether a recorded agent call only reads: GetDeployKey does only when it asks for the existing key (contract 1.8.0, issue 35). */
const isAgentRead = (call: { method: string; request: unknown }): boolean =>
  AGENT_READS.has(call.method) || (call.method === 'getDeployKey' && (call.request as { existingOnly?: boolean }).existingOnly === true);

/**
 * GETs whose only write is their own audit entry: a teacher's download of personal data in bulk
 * is recorded (who took which list, when). Nothing else may change.
 */
const AUDITED_READS = new Set(['GET /api/admin/exports/users.csv', 'GET /api/admin/exports/levels/:groupId.csv']);

/**
 * The sign-in's steps are GETs by OAuth's design: the start keeps grant's state, nonce and PKCE
 * verifier in a session (a new visitor's first session row), the callback and the finish take
 * them out again. The session is all they may change: no other row, no agent write.
 */
const SIGN_IN_STEPS = new Set(['GET /auth/:provider', 'GET /auth/:provider/callback', 'GET /session/start']);

/** Browser GETs outside the routers: pages of the single-page app, and the old logout link. */
const PAGE_PATHS = ['/', '/login', '/websites', '/dockers', '/admin/users', '/logout'];

let stack: HostingStack;
let sessions: Record<'admin' | 'developer' | 'student' | 'anonymous', HttpSession>;
/** Route parameters that name records that exist, per route. */
let params: Record<string, Record<string, string>>;

beforeAll(async () => {
  stack = await startHostingStack({
    env: {
      // No capture may start by itself during the comparison (a capture writes the thumbnails table).
      THUMBNAIL_CRON: 'off',
      THUMBNAIL_AFTER_START_S: '3600',
      DB_ADMIN_SIGNON_URL: 'http://127.0.0.1:9/devplein-signon.php',
      DB_ADMIN_SIGNON_SECRET: SIGNON_SECRET,
    },
  });
  const { knex } = stack.database;
  sessions = {
    admin: await stack.as(ADMIN),
    developer: await stack.as(DEVELOPER),
    student: await stack.as(STUDENT),
    anonymous: await stack.anonymous(),
  };
  const wordpress = await stack.project({ name: WORDPRESS_SITE, image: IMAGE.wordpress, members: [STUDENT] });
  expect((await sessions.student.json('POST', '/api/user/dockers', { id: wordpress.id })).status).toBe(200);
  // A repository (after the create: no deploy queued) and one finished deploy, so the deploy GETs answer the member.
  await knex('projects').where({ id: wordpress.id }).update({ repro: 'https://git.devplein.test/hygiene/wp.git' });
  const [deploy] = await knex('project_deploys')
    .insert({ project_id: wordpress.id, status: 'deployed', trigger: 'button', commit_hash: 'e'.repeat(40), finished_at: new Date() })
    .returning<{ id: number }[]>('id');
  const wall = await stack.project({ name: WALL_SITE, image: IMAGE.static, members: [STUDENT] });
  await knex('projects').where({ id: wall.id }).update({ visible: true });
  await knex('thumbnails').insert({ project_id: wall.id, png: fakePng(WALL_SITE), etag: 'hygiene-1', captured_at: new Date() });
  expect((await sessions.developer.json('POST', '/api/user/databases', { db: 'hyg' })).status).toBe(200);
  expect((await sessions.developer.json('POST', '/api/vpn')).status).toBeLessThan(300);
  expect((await sessions.developer.json('POST', '/api/user/ssh_keys', { name: 'laptop', sshKey: ed25519PublicKey('hygiene@laptop') })).status).toBe(200);
  expect((await sessions.admin.json('POST', '/api/admin/introduction', { name: INTRODUCEE })).status).toBe(200);

  const developerId = await stack.userId(DEVELOPER);
  const first = async (table: string, where: Record<string, unknown> = {}): Promise<string> => {
    const row = await knex(table).where(where).orderBy('id').first<{ id: number } | undefined>('id');
    return row ? String(row.id) : '1';
  };
  const database = await first('databases', { user_id: developerId });
  const vpn = await knex('vpn_configs').where({ user_id: developerId }).first<{ identifier: string }>('identifier');
  const category = await first('level_categories');
  const content = await first('level_contents');
  const group = await first('groups');
  params = {
    'GET /api/user/:id': { id: String(await stack.userId(STUDENT)) },
    'GET /misc/browserimg2/small/:file': { file: `${WALL_SITE}_s.png` },
    'GET /api/level/files/:fileId': { fileId: await first('course_files') },
    'GET /api/level/:id': { id: '1' },
    'GET /api/level/categories/show/:id': { id: category },
    'GET /api/level/content/index-by-category/:categoryId': { categoryId: category },
    'GET /api/level/content/show/:id': { id: content },
    'GET /api/level/content/:id/courses': { id: content },
    'GET /api/users/by-group/:groupId': { groupId: group },
    'GET /api/admin/exports/levels/:groupId.csv': { groupId: group },
    'GET /api/admin/teams/:id': { id: await first('teams') },
    'GET /api/admin/groups/:id': { id: group },
    'GET /api/user/project/:id': { id: String(wordpress.id) },
    'GET /api/user/dockers/:projectId/deploys': { projectId: String(wordpress.id) },
    'GET /api/user/dockers/:projectId/deploys/:deployId': { projectId: String(wordpress.id), deployId: String(deploy?.id) },
    'GET /api/user/container/:name': { name: WORDPRESS_SITE },
    'GET /api/user/container/:name/follow': { name: WORDPRESS_SITE },
    'GET /api/user/container/:name/stats': { name: WORDPRESS_SITE },
    'GET /api/wordpress/passwordreset/:project': { project: WORDPRESS_SITE },
    'GET /api/admin/dockers/:name': { name: WORDPRESS_SITE },
    'GET /api/admin/dockers/:id/screenshot': { id: String(wall.id) },
    'GET /api/vpn/:identifier': { identifier: vpn.identifier },
    'GET /api/user/databases/:id/admin': { id: database },
    'GET /auth/:provider': { provider: 'school' },
    'GET /auth/:provider/callback': { provider: 'school' },
  };
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

function fill(route: RouteEntry, values: Record<string, string> = params[route.key] ?? {}): string {
  return route.path.replace(/:([A-Za-z_]+)/g, (_match, name: string) => {
    const value = values[name] ?? '987654';
    return encodeURIComponent(value);
  });
}

/** One fingerprint per table (sessions: which exist and whose, not their last-seen time). */
async function snapshot(): Promise<Map<string, string>> {
  const { knex } = stack.database;
  const tables = (
    await knex('information_schema.tables')
      .where({ table_schema: knex.raw('current_schema()'), table_type: 'BASE TABLE' })
      .whereNotIn('table_name', ['knex_migrations', 'knex_migrations_lock'])
      .select<{ table_name: string }[]>('table_name')
  ).map((row) => row.table_name);
  const parts = tables.map((table) =>
    table === 'sessions'
      ? `select 'sessions' as t, md5(coalesce(string_agg(x.id || ':' || coalesce(x.user_id::text, '-'), '|' order by x.id), '')) as h from sessions x`
      : `select '${table}' as t, md5(coalesce(string_agg(x::text, '|' order by x::text), '')) as h from "${table}" x`,
  );
  const result = await knex.raw<{ rows: { t: string; h: string }[] }>(parts.join(' union all '));
  return new Map(result.rows.map((row) => [row.t, row.h]));
}

function changedTables(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...after].filter(([table, hash]) => before.get(table) !== hash).map(([table]) => table);
}

async function get(session: HttpSession, path: string): Promise<Response> {
  const response = await session.api('GET', path);
  // A follow stream stays open: the status and headers are all we need.
  await response.body?.cancel().catch(() => undefined);
  return response;
}

describe('no GET changes state', { timeout: 240_000 }, () => {
  const routes = routeTable();
  const gets = routes.filter((route) => route.method === 'GET');

  it('knows a record that exists for every GET route with a parameter', () => {
    const missing = gets.filter((route) => route.path.includes(':') && !(route.key in params)).map((route) => route.key);
    expect(missing, 'add these to `params` in the beforeAll').toEqual([]);
  });

  it('no GET route or page changes a row or makes the agent write, for any role', async () => {
    const callers: Array<[string, () => HttpSession]> = [
      ['admin', () => sessions.admin],
      ['developer', () => sessions.developer],
      ['student', () => sessions.student],
      ['anonymous with cookies', () => sessions.anonymous],
      ['a new visitor', () => new HttpSession(stack.app.url)],
    ];
    const targets: Array<[string, string]> = [
      ...gets.map((route): [string, string] => [route.key, fill(route)]),
      ...PAGE_PATHS.map((path): [string, string] => [`page ${path}`, path]),
    ];
    const wrong: string[] = [];
    const statuses: string[] = [];
    for (const [name, path] of targets) {
      for (const [who, session] of callers) {
        const before = await snapshot();
        const calls = stack.agent.calls.length;
        const response = await get(session(), path);
        statuses.push(`${name} as ${who}: ${response.status}`);
        const tables = changedTables(before, await snapshot()).filter(
          (table) => !(AUDITED_READS.has(name) && table === 'audit_log') && !(SIGN_IN_STEPS.has(name) && table === 'sessions'),
        );
        const writes = stack.agent.calls.slice(calls).filter((call) => !isAgentRead(call)).map((call) => call.method);
        if (tables.length > 0) wrong.push(`${name} (${path}) as ${who}: changed ${tables.join(', ')}`);
        if (writes.length > 0) wrong.push(`${name} (${path}) as ${who}: agent ${writes.join(', ')}`);
        if (response.status >= 500) wrong.push(`${name} (${path}) as ${who}: ${response.status}`);
      }
    }
    expect(wrong).toEqual([]);
    // The calls did reach the records (not only 404s): the student's own site answered.
    expect(statuses).toContain(`GET /api/user/container/:name as student: 200`);
    expect(statuses).toContain(`GET /api/wordpress/passwordreset/:project as student: 405`);
    // The phpMyAdmin link made its one-time ticket without writing it down (signed, not stored).
    expect(statuses).toContain(`GET /api/user/databases/:id/admin as developer: 302`);
    // The sign-in start did start one (to the provider).
    expect(statuses).toContain(`GET /auth/:provider as a new visitor: 302`);
  });
});

describe('Cache-Control: no-store on signed-in API answers', { timeout: 240_000 }, () => {
  const apiRoutes = routeTable().filter((route) => /^\/(api|broadcasting)\//.test(route.path));

  beforeAll(async () => {
    // Sessions of their own: nothing above may have ended the shared ones (GET /logout once did).
    for (const [role, email] of [['admin', ADMIN], ['developer', DEVELOPER], ['student', STUDENT]] as const) {
      const session = new HttpSession(stack.app.url);
      expect((await session.signIn(email)).status).toBe(200);
      sessions[role] = session;
    }
  });

  it('every /api and /broadcasting route answers a signed-in session with no-store, whatever the status', async () => {
    const wrong: string[] = [];
    for (const role of ['student', 'developer', 'admin'] as const) {
      for (const route of apiRoutes) {
        // Writes get ids that do not exist and an empty body (as routes × roles): nothing real changes.
        const path = route.method === 'GET' ? fill(route) : fill(route, {});
        const response = await sessions[role].api(route.method, path, route.method === 'GET' ? undefined : {});
        await response.body?.cancel().catch(() => undefined);
        const cacheControl = response.headers.get('cache-control') ?? '';
        if (!/\bno-store\b/.test(cacheControl)) wrong.push(`${route.key} as ${role}: ${response.status}, Cache-Control '${cacheControl}'`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('the secret-bearing answers, called for real, carry no-store', async () => {
    const { developer, student, admin } = sessions;
    const noStore = async (what: string, response: Response, status = 200): Promise<Response> => {
      expect(response.status, what).toBe(status);
      expect(response.headers.get('cache-control') ?? '', what).toMatch(/\bno-store\b/);
      return response;
    };
    await noStore('GET /api/user', await admin.api('GET', '/api/user'));
    // The introducees' git passwords.
    const introductions = await noStore('GET /api/admin/introduction', await admin.api('GET', '/api/admin/introduction'));
    expect(JSON.stringify(await introductions.json())).toContain('password');
    await noStore('POST /api/admin/introduction', await admin.api('POST', '/api/admin/introduction', { name: `${INTRODUCEE}twee` }));
    // A WordPress administrator password.
    await noStore('POST /api/wordpress/passwordreset/:project', await student.api('POST', `/api/wordpress/passwordreset/${WORDPRESS_SITE}`));
    // Database passwords.
    await noStore('GET /api/user/databases', await developer.api('GET', '/api/user/databases'));
    const created = await noStore('POST /api/user/databases', await developer.api('POST', '/api/user/databases', { db: 'sec' }));
    const made = ((await created.json()) as Array<{ id: number; name: string }>).find((row) => row.name.endsWith('_sec'));
    await noStore('DELETE /api/user/databases/:id', await developer.api('DELETE', `/api/user/databases/${made?.id}`));
    // The VPN configuration file holds the private key.
    const vpn = params['GET /api/vpn/:identifier']?.identifier;
    await noStore('GET /api/vpn/:identifier', await developer.api('GET', `/api/vpn/${vpn}`));
    await noStore('GET /api/vpn', await developer.api('GET', '/api/vpn'));
    await noStore('POST /api/vpn', await developer.api('POST', '/api/vpn'));
    // A channel signature for the student's own container.
    const auth = await student.raw('/broadcasting/auth', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-CSRF-TOKEN': decodeURIComponent(student.cookie('XSRF-TOKEN') ?? ''), 'X-Requested-With': 'XMLHttpRequest' },
      body: new URLSearchParams({ socket_id: '123.456', channel_name: `private-container.${WORDPRESS_SITE}` }).toString(),
    });
    await noStore('POST /broadcasting/auth', auth);
    await noStore('POST /broadcasting/user-auth', await student.api('POST', '/broadcasting/user-auth', { socket_id: '123.456' }));
    // phpMyAdmin sign-on: the ticket link (for the sign-on page's browser nonce), and the account the signon script redeems it for.
    const state = 's'.repeat(43);
    const link = await noStore('GET /api/user/databases/:id/admin', await developer.raw(`/api/user/databases/${params['GET /api/user/databases/:id/admin']?.id}/admin?state=${state}`), 302);
    const ticket = new URL(link.headers.get('location') ?? '').searchParams.get('ticket') ?? '';
    const redeemed = await fetch(`${stack.app.url}/api/db-admin/signon`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${SIGNON_SECRET}` },
      body: JSON.stringify({ token: ticket, state }),
    });
    await noStore('POST /api/db-admin/signon', redeemed);
  });

  it('keeps long caching on hashed assets and thumbnails, also for a signed-in session', async () => {
    const admin = sessions.admin;
    const page = await (await admin.raw('/')).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(page)?.[1] ?? '';
    const asset = await admin.raw(script);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const thumbnail = await admin.raw(`/misc/browserimg2/small/${WALL_SITE}_s.png`);
    expect(thumbnail.status).toBe(200);
    expect(thumbnail.headers.get('cache-control')).toMatch(/^public, max-age=\d+/);
  });

  it('answers 404 for an asset the build does not have (a tab of an older deploy), never the page', async () => {
    const missing = await sessions.admin.raw('/assets/Verdwenen-0000aaaa.js');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).not.toMatch(/html/);
    expect(missing.headers.get('cache-control')).toBe('no-store');
  });
});
