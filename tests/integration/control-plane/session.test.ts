/**
 * Logging out on a shared lab PC ends the school sign-in too, at the HTTP level (the browser
 * version of the same story is tests/e2e/logout-shared-pc.test.ts):
 *
 * - POST /logout (CSRF token required) ends our session and answers where the browser goes: the
 *   provider's end_session_endpoint with the sign-in's id_token as id_token_hint and the home
 *   page as post_logout_redirect_uri (OpenID Connect RP-initiated logout). The development
 *   provider ends its session there without a confirmation click and sends the browser home.
 * - A provider without end_session_endpoint (the development provider with
 *   DEV_LOGIN_END_SESSION=false): our session ends, the browser goes home, and the next sign-in
 *   from that browser sends prompt=login, so the provider asks for the account although its
 *   own session is still alive.
 * - GET /logout signs nobody out (405).
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSeededControlPlane, type RunningControlPlane, type SeededControlPlane } from '../../support/services/control-plane.ts';
import type { TestDatabase } from '../../support/services/database.ts';
import { HttpSession } from '../../support/clients/http-session.ts';

let withEndSession: SeededControlPlane;
let withoutEndSession: SeededControlPlane;
/** The development provider with an end_session_endpoint (the default). */
let app: RunningControlPlane;
let database: TestDatabase;
/** The development provider without one (a database of its own: accounts are bound to their issuer). */
let fallback: RunningControlPlane;
let fallbackDatabase: TestDatabase;

beforeAll(async () => {
  withEndSession = await startSeededControlPlane();
  ({ app, database } = withEndSession);
  withoutEndSession = await startSeededControlPlane({ env: { DEV_LOGIN_END_SESSION: 'false' } });
  ({ app: fallback, database: fallbackDatabase } = withoutEndSession);
});

afterAll(async () => {
  await withEndSession?.stop();
  await withoutEndSession?.stop();
});

async function signedIn(url: string, email: string): Promise<HttpSession> {
  const session = new HttpSession(url);
  expect((await session.signIn(email)).status, `sign-in of ${email}`).toBe(200);
  return session;
}

async function emailOf(session: HttpSession): Promise<string | null> {
  const me = await session.json<{ email: string }>('GET', '/api/user');
  return me.status === 200 ? me.body.email : null;
}

interface SignInStart {
  /** The provider's authorization request (where /auth/school sent the browser). */
  authorize: URL;
  /** The account picker's address, or null when the provider signed someone in without asking. */
  picker: string | null;
}

/** Clicks Inloggen without a login_hint: follows the flow until the provider's picker or the app. */
async function startSignIn(session: HttpSession): Promise<SignInStart> {
  let response = await session.raw('/auth/school');
  expect(response.status).toBe(302);
  const authorize = new URL(response.headers.get('location') ?? '', session.baseUrl);
  for (let hop = 0; hop < 10 && response.status >= 300 && response.status < 400; hop++) {
    const location = new URL(response.headers.get('location') ?? '', session.baseUrl);
    if (location.pathname.startsWith('/dev-idp/interaction/')) {
      const page = await session.raw(location.toString());
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('Kies een demo-account');
      return { authorize, picker: location.toString() };
    }
    response = await session.raw(location.toString());
  }
  return { authorize, picker: null };
}

/**
 * Picks an account in the provider's picker, as a click on its button does; ends on the app. When
 * the provider still has another account's session, it first ends that one with a page that
 * posts itself (a script in a browser): that form is posted here.
 */
async function pick(session: HttpSession, picker: string, email: string): Promise<Response> {
  const response = await session.raw(picker, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email }).toString(),
  });
  let landing = await session.follow(new URL(response.headers.get('location') ?? '', picker).toString());
  const html = landing.status === 200 ? await landing.clone().text() : '';
  const form = /<form method="post" action="([^"]+)">([\s\S]*?)<\/form>/.exec(html);
  if (form && html.includes('Submitting Callback')) {
    const fields = new URLSearchParams([...(form[2] ?? '').matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"\/>/g)].map((input) => [input[1] ?? '', input[2] ?? '']));
    const posted = await session.raw(form[1] ?? '', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: fields.toString() });
    landing = await session.follow(new URL(posted.headers.get('location') ?? '', form[1]).toString());
  }
  return landing;
}

describe('POST /logout with a provider that has an end_session_endpoint', () => {
  it('ends our session and sends the browser to the provider with the sign-in’s id_token as hint', async () => {
    const session = await signedIn(app.url, 'student@devplein.test');
    const sessionId = session.cookie('devplein_session') ?? '';
    expect(await database.knex('sessions').where({ id: sessionId }).first()).toBeDefined();

    const answer = await session.api('POST', '/logout');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toContain('no-store');
    const { redirect } = (await answer.json()) as { redirect: string };
    const target = new URL(redirect);
    expect(`${target.origin}${target.pathname}`).toBe(`${app.url}/dev-idp/session/end`);
    expect(target.searchParams.get('post_logout_redirect_uri')).toBe(`${app.url}/`);
    expect(target.searchParams.get('client_id')).toBe('devplein-dev');
    const hint = decodeJwt(target.searchParams.get('id_token_hint') ?? '');
    expect(hint).toMatchObject({ aud: 'devplein-dev', iss: `${app.url}/dev-idp`, email: 'student@devplein.test' });

    expect(await database.knex('sessions').where({ id: sessionId }).first()).toBeUndefined();
    expect(await emailOf(session)).toBeNull();
  });

  it('the provider signs out without a click and sends the browser home; the next person gets the account picker', async () => {
    const session = await signedIn(app.url, 'ontwikkelaar@devplein.test');
    const { redirect, landing } = await session.logOut();
    expect(new URL(redirect).pathname).toBe('/dev-idp/session/end');
    expect(landing.status).toBe(200);
    expect(landing.url).toBe(`${app.url}/`);
    expect(await emailOf(session)).toBeNull();

    // The next person at this browser clicks Inloggen: the provider asks who it is.
    const next = await startSignIn(session);
    expect(next.picker, 'the provider signed the previous person straight back in').not.toBeNull();
    await pick(session, next.picker ?? '', 'docent@devplein.test');
    expect(await emailOf(session)).toBe('docent@devplein.test');
  });

  it('(the contrast) without logging out, the provider’s own session signs the same person straight back in', async () => {
    const session = await signedIn(app.url, 'admin@devplein.test');
    // Only our session is gone (as after GET /logout before this change).
    await database.knex('sessions').where({ id: session.cookie('devplein_session') ?? '' }).delete();
    expect(await emailOf(session)).toBeNull();
    const next = await startSignIn(session);
    expect(next.picker).toBeNull();
    expect(next.authorize.searchParams.get('prompt')).toBeNull();
    expect(await emailOf(session)).toBe('admin@devplein.test');
  });
});

describe('POST /logout with a provider without end_session_endpoint', () => {
  it('the provider publishes none', async () => {
    const discovery = (await (await fetch(`${fallback.url}/dev-idp/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(discovery.authorization_endpoint).toBeDefined();
    expect(discovery).not.toHaveProperty('end_session_endpoint');
  });

  it('sends the browser home, and the next sign-in from it sends prompt=login: the picker despite the provider’s session', async () => {
    const session = await signedIn(fallback.url, 'student@devplein.test');
    const { redirect, landing } = await session.logOut();
    expect(redirect).toBe('/');
    expect(landing.url).toBe(`${fallback.url}/`);
    expect(await emailOf(session)).toBeNull();

    const next = await startSignIn(session);
    expect(next.authorize.searchParams.get('prompt')).toBe('login');
    expect(next.picker, 'the provider signed the previous person straight back in').not.toBeNull();
    await pick(session, next.picker ?? '', 'ontwikkelaar@devplein.test');
    expect(await emailOf(session)).toBe('ontwikkelaar@devplein.test');

    // Asked once: the sign-in after that may use the provider's session again.
    await fallbackDatabase.knex('sessions').where({ id: session.cookie('devplein_session') ?? '' }).delete();
    const again = await startSignIn(session);
    expect(again.authorize.searchParams.get('prompt')).toBeNull();
    expect(again.picker).toBeNull();
    expect(await emailOf(session)).toBe('ontwikkelaar@devplein.test');
  });
});

describe('what does not sign anyone out', () => {
  it('GET /logout answers 405 with Allow: POST (a Dutch page, or JSON for the API client) and the session stays', async () => {
    const session = await signedIn(app.url, 'student@devplein.test');
    const page = await session.raw('/logout', { headers: { Accept: 'text/html' } });
    expect(page.status).toBe(405);
    expect(page.headers.get('allow')).toBe('POST');
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('Uitloggen gaat met de knop Uitloggen in het menu');
    const json = await session.api('GET', '/logout');
    expect(json.status).toBe(405);
    expect(json.headers.get('allow')).toBe('POST');
    expect(((await json.json()) as { message: string }).message).toBe('Uitloggen gaat met de knop Uitloggen in het menu, niet met een link.');
    expect(await emailOf(session)).toBe('student@devplein.test');
  });

  it('POST /logout without or with a wrong CSRF token answers 419 and the session stays', async () => {
    const session = await signedIn(app.url, 'student@devplein.test');
    for (const token of ['', 'niet-het-token']) {
      const response = await session.api('POST', '/logout', undefined, { 'X-CSRF-TOKEN': token });
      expect(response.status).toBe(419);
    }
    expect(await emailOf(session)).toBe('student@devplein.test');
  });

  it('an anonymous visitor’s POST /logout (with the page’s token) just goes home', async () => {
    const visitor = new HttpSession(app.url);
    await visitor.primeCsrf();
    const response = await visitor.json<{ redirect: string }>('POST', '/logout');
    expect(response).toEqual({ status: 200, body: { redirect: '/' } });
  });
});
