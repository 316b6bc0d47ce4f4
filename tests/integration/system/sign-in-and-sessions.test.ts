import { describe, expect, it } from 'vitest';
import { seededControlPlane } from '../../support/stacks/seeded-control-plane.ts';
import { HttpSession } from '../../support/clients/http-session.ts';
import type { CurrentUserJson as UserJson } from '@devplein/contract/users';

const stack = seededControlPlane();

async function signedIn(email: string): Promise<HttpSession> {
  const session = new HttpSession(stack.app.url);
  const landing = await session.signIn(email);
  expect(landing.status, `sign-in of ${email} should end on the app`).toBe(200);
  return session;
}

describe('sign-in through the development identity provider (real OIDC code + PKCE flow)', () => {
  it('answers 401 for GET /api/user when signed out', async () => {
    const anonymous = new HttpSession(stack.app.url);
    const { status, body } = await anonymous.json<{ message: string }>('GET', '/api/user');
    expect(status).toBe(401);
    expect(body.message).toBe('Je bent niet ingelogd.');
  });

  it('signs in each role and presents the user with flags, teams and group', async () => {
    const admin = await signedIn('admin@devplein.test');
    const me = await admin.json<UserJson>('GET', '/api/user');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ email: 'admin@devplein.test', admin: true, developer: true });
    expect(me.body.teams[0]?.id).toBe(1);
    expect(me.body.email_verified_at).not.toBeNull();

    const docent = await (await signedIn('docent@devplein.test')).json<UserJson>('GET', '/api/user');
    expect(docent.body).toMatchObject({ admin: true, developer: false });

    const developer = await (await signedIn('ontwikkelaar@devplein.test')).json<UserJson>('GET', '/api/user');
    expect(developer.body).toMatchObject({ admin: false, developer: true, group: { cohort: 'SD22' } });

    const student = await (await signedIn('student@devplein.test')).json<UserJson>('GET', '/api/user');
    expect(student.body).toMatchObject({ admin: false, developer: false, group: { cohort: 'SD23' } });

    const withoutGroup = await (await signedIn('zonderklas@devplein.test')).json<UserJson>('GET', '/api/user');
    expect(withoutGroup.body.group).toBeNull();
  });

  it('lets a not-activated user read only /api/user; every other API answers 403 not_verified', async () => {
    const newcomer = await signedIn('nieuw@devplein.test');
    const me = await newcomer.json<UserJson>('GET', '/api/user');
    expect(me.status).toBe(200);
    expect(me.body.email_verified_at).toBeNull();
    const other = await newcomer.json<{ reason: string }>('GET', `/api/user/${me.body.id}`);
    expect(other.status).toBe(403);
    expect(other.body.reason).toBe('not_verified');
  });

  it('shows another user’s profile to an activated user, without the activation date', async () => {
    const student = await signedIn('student@devplein.test');
    const adminRow = await stack.database.knex('users').where({ email: 'admin@devplein.test' }).first<{ id: number }>();
    const profile = await student.json<Record<string, unknown>>('GET', `/api/user/${adminRow.id}`);
    expect(profile.status).toBe(200);
    expect(profile.body).toMatchObject({ id: adminRow.id, admin: true });
    expect(profile.body).not.toHaveProperty('email_verified_at');
    expect((await student.json('GET', '/api/user/999999')).status).toBe(404);
    expect((await student.json('GET', '/api/user/abc')).status).toBe(422);
    expect((await new HttpSession(stack.app.url).json('GET', `/api/user/${adminRow.id}`)).status).toBe(401);
  });

  it('gives a new session id at sign-in (a planted session id is worthless)', async () => {
    const session = new HttpSession(stack.app.url);
    // The session row is made when sign-in starts (grant keeps state, nonce and PKCE verifier there).
    expect((await session.raw('/auth/school?login_hint=student%40devplein.test')).status).toBe(302);
    const before = session.cookie('devplein_session');
    expect(before).toBeDefined();
    await session.signIn('student@devplein.test');
    expect(session.cookie('devplein_session')).toBeDefined();
    expect(session.cookie('devplein_session')).not.toBe(before);
  });

  it('starts a sign-in only at the declared paths: another provider or another step under /auth is a Dutch 404 that makes no session', async () => {
    for (const path of ['/auth/andere-school', '/auth/school/iets-anders', '/auth/school/callback/extra', '/auth']) {
      const visitor = new HttpSession(stack.app.url);
      const answer = await visitor.raw(path);
      expect(answer.status, path).toBe(404);
      expect(answer.headers.get('location'), path).toBeNull();
      expect(await answer.json(), path).toEqual({ message: 'Deze inlogdienst bestaat niet.' });
      expect(visitor.cookie('devplein_session'), `${path} started a session`).toBeUndefined();
    }
  });

  it('logs out with POST /logout (tests/integration/control-plane/session.test.ts has the rest)', async () => {
    const session = await signedIn('student@devplein.test');
    const { answer, landing } = await session.logOut();
    expect(answer.status).toBe(200);
    expect(landing.url).toBe(`${stack.app.url}/`);
    expect((await session.json('GET', '/api/user')).status).toBe(401);
  });
});

describe('CSRF', () => {
  it('answers 419 to an unsafe request without or with a wrong token, and lets the right one through', async () => {
    const session = await signedIn('admin@devplein.test');
    const body = { socket_id: '123.456' };
    const without = await session.api('POST', '/broadcasting/user-auth', body, { 'X-CSRF-TOKEN': '' });
    expect(without.status).toBe(419);
    expect(await without.json()).toHaveProperty('message');
    const wrong = await session.api('POST', '/broadcasting/user-auth', body, { 'X-CSRF-TOKEN': 'not-the-token' });
    expect(wrong.status).toBe(419);
    const right = await session.api('POST', '/broadcasting/user-auth', body);
    expect(right.status).toBe(200);
    const viaXsrfHeader = await session.api('POST', '/broadcasting/user-auth', body, {
      'X-CSRF-TOKEN': '',
      'X-XSRF-TOKEN': decodeURIComponent(session.cookie('XSRF-TOKEN') ?? ''),
    });
    expect(viaXsrfHeader.status).toBe(200);
  });

  it('puts the token in the served page', async () => {
    const session = new HttpSession(stack.app.url);
    const page = await (await session.raw('/')).text();
    const token = /<meta name="csrf-token" content="([^"]+)"\s*\/?>/.exec(page)?.[1];
    expect(token).toBeDefined();
    expect(token).toBe(decodeURIComponent(session.cookie('XSRF-TOKEN') ?? ''));
  });
});

describe('sessions', () => {
  it('are not created by cookieless reads (API calls, images) nor by page loads, only when sign-in starts', async () => {
    const count = async () => Number((await stack.database.knex('sessions').count<{ count: number }[]>('* as count'))[0]?.count);
    const before = await count();
    for (let i = 0; i < 5; i++) {
      expect((await fetch(`${stack.app.url}/api/sites`)).status).toBe(200);
      expect((await fetch(`${stack.app.url}/api/user`)).status).toBe(401);
    }
    expect(await count()).toBe(before);
    const visitor = new HttpSession(stack.app.url);
    await visitor.primeCsrf();
    expect(await count()).toBe(before);
    expect((await visitor.raw('/auth/school')).status).toBe(302);
    expect(await count()).toBe(before + 1);
  });

  it('survive a control-plane restart (they live in PostgreSQL)', async () => {
    const session = await signedIn('ontwikkelaar@devplein.test');
    await stack.app.restart();
    const me = await session.json<UserJson>('GET', '/api/user');
    expect(me.status).toBe(200);
    expect(me.body.email).toBe('ontwikkelaar@devplein.test');
  });

  it('die at once when the user is disabled, and the next sign-in is refused', async () => {
    const session = await signedIn('zonderklas@devplein.test');
    expect((await session.json('GET', '/api/user')).status).toBe(200);
    await stack.database.knex('users').where({ email: 'zonderklas@devplein.test' }).update({ disabled_at: new Date() });
    expect((await session.json('GET', '/api/user')).status).toBe(401);
    const again = new HttpSession(stack.app.url);
    const landing = await again.follow('/auth/school?login_hint=zonderklas%40devplein.test');
    expect(landing.url).toMatch(/\/not_verified$/);
    expect((await again.json('GET', '/api/user')).status).toBe(401);
    await stack.database.knex('users').where({ email: 'zonderklas@devplein.test' }).update({ disabled_at: null });
  });
});
