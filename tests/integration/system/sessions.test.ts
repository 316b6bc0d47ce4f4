/**
 * Session hygiene: the session cookie's __Host- prefix over HTTPS, no session row for anonymous
 * page views (a stateless signed CSRF token instead, switched to the session's at sign-in), the
 * idle timeout and the absolute lifetime of signed-in sessions, and no session write on every
 * signed-in request. bench/anonymous-pages.bench.ts does the 10,000 page views.
 */
import { createServer, type Server } from 'node:http';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSeededControlPlane, type RunningControlPlane, type SeededControlPlane } from '../../support/services/control-plane.ts';
import type { TestDatabase } from '../../support/services/database.ts';
import { HttpSession } from '../../support/clients/http-session.ts';
import { findFreePort, waitFor } from '../../support/clients/ports.ts';

let main: SeededControlPlane;
let database: TestDatabase;
let app: RunningControlPlane;

beforeAll(async () => {
  main = await startSeededControlPlane();
  ({ database, app } = main);
});

afterAll(async () => {
  await main?.stop();
});

const sessionCount = async (knex: Knex): Promise<number> => Number((await knex('sessions').count<{ n: number }[]>({ n: '*' }))[0]?.n);

async function signedIn(url: string, email: string): Promise<HttpSession> {
  const session = new HttpSession(url);
  expect((await session.signIn(email)).status, `sign-in of ${email}`).toBe(200);
  return session;
}

/** Sends an unsafe request with exactly these headers (token and cookie as given). */
function post(url: string, path: string, headers: Record<string, string>): Promise<Response> {
  return fetch(new URL(path, url), { method: 'POST', headers: { 'X-Requested-With': 'XMLHttpRequest', Accept: 'application/json', 'Content-Type': 'application/json', ...headers }, body: '{}' });
}

describe('anonymous page views', () => {
  it('write no session row: 300 page views by new and returning visitors leave the sessions table as it was', async () => {
    const before = await sessionCount(database.knex);
    const returning = new HttpSession(app.url);
    for (let index = 0; index < 100; index++) {
      for (const path of ['/', '/websites', '/login']) {
        const response = index % 2 === 0 ? await fetch(`${app.url}${path}`) : await returning.raw(path);
        expect(response.status).toBe(200);
        await response.body?.cancel();
      }
    }
    expect(await sessionCount(database.knex)).toBe(before);
    expect(returning.cookie('devplein_session')).toBeUndefined();
  });

  it('get a signed token in the meta tag and the XSRF-TOKEN cookie, the same on every page of that visitor', async () => {
    const visitor = new HttpSession(app.url);
    const page = await (await visitor.raw('/')).text();
    const token = /<meta name="csrf-token" content="([^"]+)"/.exec(page)?.[1] ?? '';
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(visitor.cookie('XSRF-TOKEN')).toBe(token);
    const again = await (await visitor.raw('/websites')).text();
    expect(again).toContain(`<meta name="csrf-token" content="${token}"`);
  });

  it('an unsafe request passes CSRF with that token (then 401), and answers 419 without it, with another valid one, or with a forged one', async () => {
    const visitor = new HttpSession(app.url);
    await visitor.primeCsrf();
    const token = visitor.cookie('XSRF-TOKEN') ?? '';
    const other = new HttpSession(app.url);
    await other.primeCsrf();
    const otherToken = other.cookie('XSRF-TOKEN') ?? '';
    const [random] = token.split('.');
    const forged = `${random}.${'A'.repeat(43)}`;
    const cases: Array<[string, Record<string, string>, number]> = [
      ['the page token', { 'X-CSRF-TOKEN': token, Cookie: `XSRF-TOKEN=${token}` }, 401],
      ['as X-XSRF-TOKEN', { 'X-XSRF-TOKEN': token, Cookie: `XSRF-TOKEN=${token}` }, 401],
      ['no header', { Cookie: `XSRF-TOKEN=${token}` }, 419],
      ['no cookie', { 'X-CSRF-TOKEN': token }, 419],
      ["another visitor's token in the header", { 'X-CSRF-TOKEN': otherToken, Cookie: `XSRF-TOKEN=${token}` }, 419],
      ['a forged token, header and cookie alike', { 'X-CSRF-TOKEN': forged, Cookie: `XSRF-TOKEN=${forged}` }, 419],
      ['a made-up token, header and cookie alike', { 'X-CSRF-TOKEN': 'abc', Cookie: 'XSRF-TOKEN=abc' }, 419],
    ];
    for (const [what, headers, status] of cases) {
      const response = await post(app.url, '/broadcasting/user-auth', headers);
      expect(response.status, what).toBe(status);
    }
  });

  it('at sign-in the token switches to the session’s: the anonymous one no longer passes', async () => {
    const session = new HttpSession(app.url);
    await session.primeCsrf();
    const anonymous = session.cookie('XSRF-TOKEN') ?? '';
    await session.signIn('admin@devplein.test');
    const signedInToken = session.cookie('XSRF-TOKEN') ?? '';
    expect(signedInToken).not.toBe(anonymous);
    const page = await (await session.raw('/')).text();
    expect(page).toContain(`<meta name="csrf-token" content="${signedInToken}"`);
    expect((await session.api('POST', '/broadcasting/user-auth', { socket_id: '1.2' }, { 'X-CSRF-TOKEN': anonymous })).status).toBe(419);
    expect((await session.api('POST', '/broadcasting/user-auth', { socket_id: '1.2' })).status).toBe(200);
  });

  it('the session row is made when sign-in starts, and holds only the sign-in in progress', async () => {
    const before = await sessionCount(database.knex);
    const visitor = new HttpSession(app.url);
    await visitor.primeCsrf();
    expect(await sessionCount(database.knex)).toBe(before);
    expect((await visitor.raw('/auth/school')).status).toBe(302);
    expect(await sessionCount(database.knex)).toBe(before + 1);
    const row = await database.knex('sessions').where({ id: visitor.cookie('devplein_session') ?? '' }).first<{ user_id: number | null }>();
    expect(row?.user_id).toBeNull();
  });
});

describe('signed-in sessions', () => {
  it('are not written on every request: 30 requests within a minute leave the row untouched', async () => {
    const session = await signedIn(app.url, 'student@devplein.test');
    const version = async () =>
      (await database.knex('sessions').where({ id: session.cookie('devplein_session') ?? '' }).first<{ xmin: string }>(database.knex.raw('xmin::text as xmin'))).xmin;
    const before = await version();
    for (let index = 0; index < 30; index++) expect((await session.api('GET', '/api/user')).status).toBe(200);
    expect(await version()).toBe(before);
  });
});

describe('across the switch back to koa-session (2026-12-01)', () => {
  // Made by the middleware before it (control-plane/src/auth/cookie-signer.ts at 8ddc3da) for
  // this id under TEST_SESSION_SECRET: HMAC-SHA1 of "devplein_session=<id>", base64url.
  const ID = '3f6c2a9e-8d41-4b7a-9c05-1e2d3c4b5a69';
  const SIGNATURE = '5BowZk5QBw_ipBNRg3t6x_KlMcs';

  it('a cookie signed before the switch, with its row as that middleware wrote it, still signs in', async () => {
    const user = await database.knex('users').where({ email: 'student@devplein.test' }).first<{ id: number }>('id');
    const now = Date.now();
    // That middleware's row: the data as the request left it, no koa-session _expire/_maxAge.
    const data = { userId: user.id, csrf: 'een-csrf-token-van-voor-de-overstap', signedInAt: now - 60_000, seenAt: now - 60_000 };
    await database.knex('sessions').insert({ id: ID, user_id: user.id, data: JSON.stringify(data), expires_at: new Date(now + 3_600_000) });
    const response = await fetch(`${app.url}/api/user`, { headers: { Accept: 'application/json', Cookie: `devplein_session=${ID}; devplein_session.sig=${SIGNATURE}` } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { email?: string }).email).toBe('student@devplein.test');
    // The last-seen refresh was due: written under the same id (the cookie sent again names it).
    const renewed = response.headers.getSetCookie().find((line) => line.startsWith('devplein_session='));
    expect(renewed?.split(';')[0]).toBe(`devplein_session=${ID}`);
    const row = await database.knex('sessions').where({ id: ID }).first<{ data: { seenAt: number } }>('data');
    expect(row.data.seenAt).toBeGreaterThanOrEqual(now);
  });
});

describe('the session cookie over HTTPS', () => {
  let secure: RunningControlPlane;
  let stack: SeededControlPlane;
  let provider: Server;

  beforeAll(async () => {
    // A school provider of which only discovery is needed (sign-in starts, nothing more): the
    // development provider's issuer would be the https APP_URL, which nothing serves here.
    const providerPort = await findFreePort();
    const issuer = `http://127.0.0.1:${providerPort}`;
    provider = createServer((request, response) => {
      if (request.url !== '/.well-known/openid-configuration') return void response.writeHead(404).end();
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify({ issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, jwks_uri: `${issuer}/jwks`, userinfo_endpoint: `${issuer}/userinfo` }));
    });
    await new Promise<void>((resolve) => provider.listen(providerPort, '127.0.0.1', resolve));
    // A loopback http listener behind a (pretend) TLS proxy: APP_URL https, X-Forwarded-Proto trusted.
    const port = await findFreePort();
    stack = await startSeededControlPlane({
      port,
      env: { APP_URL: `https://localhost:${port}`, TRUST_PROXY: 'true', DEV_LOGIN: '', OIDC_ISSUER: issuer, OIDC_CLIENT_ID: 'devplein', OIDC_CLIENT_SECRET: 'een-geheim-van-de-school' },
    });
    secure = stack.app;
  });

  afterAll(async () => {
    await stack?.stop();
    await new Promise((resolve) => provider?.close(resolve));
  });

  it('is __Host-devplein_session: Secure, Path=/, no Domain (its signature cookie too)', async () => {
    const response = await fetch(`${secure.url}/auth/school`, { redirect: 'manual', headers: { 'X-Forwarded-Proto': 'https' } });
    expect(response.status).toBe(302);
    const cookies = response.headers.getSetCookie();
    const session = cookies.filter((line) => /^__Host-devplein_session(\.sig)?=/.test(line));
    expect(session.map((line) => line.split('=')[0])).toEqual(['__Host-devplein_session', '__Host-devplein_session.sig']);
    for (const line of session) {
      const attributes = line.split(';').map((part) => part.trim().toLowerCase());
      expect(attributes, line).toContain('secure');
      expect(attributes, line).toContain('path=/');
      expect(attributes, line).toContain('httponly');
      expect(attributes.some((attribute) => attribute.startsWith('domain=')), line).toBe(false);
    }
    expect(cookies.some((line) => line.startsWith('devplein_session='))).toBe(false);
    // The CSRF cookie keeps its spec name and is Secure too.
    const page = await fetch(`${secure.url}/`, { headers: { 'X-Forwarded-Proto': 'https' } });
    const csrf = page.headers.getSetCookie().find((line) => line.startsWith('XSRF-TOKEN='));
    expect(csrf?.toLowerCase()).toContain('secure');
  });
});

describe('idle timeout and absolute lifetime', () => {
  let stack: SeededControlPlane;
  let short: RunningControlPlane;
  let shortDatabase: TestDatabase;
  const IDLE_MS = 3000;
  const MAX_AGE_MS = 9000;

  beforeAll(async () => {
    stack = await startSeededControlPlane({
      env: { SESSION_IDLE_TIMEOUT_MINUTES: String(IDLE_MS / 60_000), SESSION_MAX_AGE_HOURS: String(MAX_AGE_MS / 3_600_000) },
    });
    ({ app: short, database: shortDatabase } = stack);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const expiresAt = async (session: HttpSession): Promise<number | null> => {
    const row = await shortDatabase.knex('sessions').where({ id: session.cookie('devplein_session') ?? '' }).first<{ expires_at: Date } | undefined>('expires_at');
    return row ? new Date(row.expires_at).getTime() : null;
  };

  it('a session in use outlives the idle timeout; left alone it ends once the idle timeout has passed', async () => {
    const session = await signedIn(short.url, 'student@devplein.test');
    const started = Date.now();
    // In use for twice the idle timeout (requests back to back).
    while (Date.now() - started < 2 * IDLE_MS) expect((await session.api('GET', '/api/user')).status).toBe(200);
    const lastUse = Date.now();
    // Left alone: the row's end (the store's idle expiry) passes; read from the database, not by using the session.
    await waitFor(async () => ((await expiresAt(session)) ?? 0) <= Date.now(), { description: 'the session reaching its idle end', timeoutMs: 20_000, intervalMs: 200 });
    const idle = Date.now() - lastUse;
    // Ended by the idle timeout (the last-seen time is kept to within a tenth of it), not by anything later.
    expect(idle).toBeGreaterThanOrEqual(IDLE_MS * 0.85);
    expect(idle).toBeLessThan(IDLE_MS + 2500);
    expect((await session.api('GET', '/api/user')).status).toBe(401);
  });

  it('a session in use all the time still ends at the absolute lifetime after sign-in', async () => {
    const session = await signedIn(short.url, 'ontwikkelaar@devplein.test');
    const started = Date.now();
    await waitFor(async () => (await session.api('GET', '/api/user')).status === 401, { description: 'the session ending while in use', timeoutMs: 30_000, intervalMs: 100 });
    const lasted = Date.now() - started;
    expect(lasted).toBeGreaterThanOrEqual(MAX_AGE_MS - 1000);
    expect(lasted).toBeLessThan(MAX_AGE_MS + 5000);
  });
});
