/**
 * The server-to-server paths (a dev server's join and renewal, the phpMyAdmin signon redeem, a
 * git server's push) never load the browser session (issue 35): a request there that carries a
 * signed-in session's cookie neither reads the session row (a disabled user's session would be
 * ended by it) nor writes it (the last-seen refresh) nor sets a session cookie. The same cookie
 * on a browser path does all three, so the set-up would show it.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSeededControlPlane, type SeededControlPlane } from '../../support/services/control-plane.ts';
import { HttpSession } from '../../support/clients/http-session.ts';

let stack: SeededControlPlane;

beforeAll(async () => {
  // The signon redeem answers 501 unless phpMyAdmin's sign-on is set up.
  stack = await startSeededControlPlane({ env: { DB_ADMIN_SIGNON_URL: 'http://127.0.0.1:9/devplein-signon.php', DB_ADMIN_SIGNON_SECRET: randomBytes(24).toString('hex') } });
});

afterAll(async () => {
  await stack?.stop();
});

const MACHINE_PATHS = ['/api/agents/join', '/api/agents/renew', '/api/db-admin/signon', '/api/hooks/deploy/1'];
const SESSION_COOKIE = 'devplein_session';

/** A signed-in browser session of `email` and its session row's id. */
async function signedIn(email: string): Promise<{ session: HttpSession; id: string; userId: number }> {
  const session = new HttpSession(stack.app.url);
  expect((await session.signIn(email)).status).toBe(200);
  const id = session.cookie(SESSION_COOKIE);
  expect(id, 'the session cookie').toBeDefined();
  const row = await stack.database.knex('sessions').where({ id }).first<{ user_id: number } | undefined>('user_id');
  expect(row, 'the session row').toBeDefined();
  return { session, id: id as string, userId: (row as { user_id: number }).user_id };
}

/** POSTs to a server-to-server path with the browser session's cookies, as a stray client might. */
async function postWithCookies(session: HttpSession, path: string): Promise<Response> {
  const cookies = [SESSION_COOKIE, `${SESSION_COOKIE}.sig`].map((name) => `${name}=${session.cookie(name) ?? ''}`).join('; ');
  return fetch(new URL(path, stack.app.url), { method: 'POST', headers: { Cookie: cookies, 'Content-Type': 'application/json' }, body: '{}' });
}

const seenAtOf = async (id: string): Promise<number | undefined> => {
  const row = await stack.database.knex('sessions').where({ id }).first<{ data: { seenAt?: number } } | undefined>('data');
  return row?.data.seenAt;
};

describe('server-to-server paths skip the browser session', () => {
  it('write no session row and set no session cookie (the last-seen refresh a browser path makes)', async () => {
    const { session, id } = await signedIn('student@devplein.test');
    // Last seen ten minutes ago: the next request that loads the session refreshes it (once a minute at most).
    const earlier = Date.now() - 10 * 60_000;
    await stack.database.knex('sessions').where({ id }).update({ data: stack.database.knex.raw("jsonb_set(data, '{seenAt}', to_jsonb(?::bigint))", [earlier]) });
    for (const path of MACHINE_PATHS) {
      const answer = await postWithCookies(session, path);
      expect(answer.status, path).toBeLessThan(500);
      expect(answer.headers.getSetCookie().filter((line) => line.startsWith(SESSION_COOKIE)), `${path}: session cookie`).toEqual([]);
      expect(answer.headers.get('cache-control'), `${path}: no copy kept`).toBe('no-store');
      expect(await seenAtOf(id), `${path}: last seen`).toBe(earlier);
    }
    // The same cookie on a browser path loads the session and refreshes it.
    expect((await session.json('GET', '/api/user')).status).toBe(200);
    expect(await seenAtOf(id)).toBeGreaterThan(earlier);
  });

  it('read no session: a disabled user’s session is not ended there, only on a browser path', async () => {
    const { session, id, userId } = await signedIn('ontwikkelaar@devplein.test');
    // Disabled outside the control plane (the database announces it): the next load of this session ends it.
    await stack.database.knex('users').where({ id: userId }).update({ disabled_at: new Date() });
    for (const path of MACHINE_PATHS) {
      const answer = await postWithCookies(session, path);
      expect(answer.status, path).toBeLessThan(500);
      expect(answer.headers.getSetCookie().filter((line) => line.startsWith(SESSION_COOKIE)), `${path}: session cookie`).toEqual([]);
      expect(await stack.database.knex('sessions').where({ id }).first('id'), `${path}: the session row`).toBeDefined();
    }
    expect((await session.json('GET', '/api/user')).status).toBe(401);
    expect(await stack.database.knex('sessions').where({ id }).first('id')).toBeUndefined();
  });
});
