/**
 * Signing a student straight into phpMyAdmin for one database (beyond the spec): the real signon
 * script of deploy/phpmyadmin (run by PHP's own web server, on an origin of its own) gives the
 * browser a nonce in its cookie, the control plane makes a one-time ticket bound to that nonce
 * and to the owner's sign-in, and the script redeems it with the nonce and writes phpMyAdmin's
 * signon session. The password never appears in a URL; a ticket works once, for its owner's
 * database only, and only in the browser that asked for it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, DEVELOPER, DOCENT, NOT_ACTIVATED, STUDENT, startHostingStack, type HostingStack } from '../../support/stacks/hosting-stack.ts';
import { HttpSession } from '../../support/clients/http-session.ts';
import { findFreePort, waitFor } from '../../support/clients/ports.ts';
import { findExecutable } from '../../support/services/system-deps.ts';
import { TEST_SESSION_SECRET } from '../../support/services/control-plane.ts';
import { mintSignonTicket } from '../../../control-plane/src/lib/db-admin-ticket.ts';
import { call } from '../../support/clients/endpoint-calls.ts';
import { createDatabase } from '@devplein/contract/http/databases';
import type { DatabaseJson } from '@devplein/contract/access';


const secret = randomBytes(24).toString('hex');
let stack: HostingStack;
let php: ChildProcess | undefined;
let phpUrl: string;
let sessionDir: string;

beforeAll(async () => {
  const phpBinary = findExecutable('php');
  if (!phpBinary) throw new Error('php not found: apt-get install php-cli (npm test installs it)');
  const phpPort = await findFreePort();
  phpUrl = `http://127.0.0.1:${phpPort}`;
  stack = await startHostingStack({
    env: { DB_ADMIN_SIGNON_URL: `${phpUrl}/devplein-signon.php`, DB_ADMIN_SIGNON_SECRET: secret, DB_ADMIN_URL: '/phpmyadmin/', STUDENT_DB_HOST: '10.8.0.1' },
  });
  sessionDir = mkdtempSync(path.join(os.tmpdir(), 'devplein-pma-sessions-'));
  php = spawn(phpBinary, ['-d', `session.save_path=${sessionDir}`, '-S', `127.0.0.1:${phpPort}`, '-t', path.resolve('deploy/phpmyadmin')], {
    env: { ...process.env, DEVPLEIN_URL: stack.app.url, DEVPLEIN_SIGNON_SECRET: secret, DEVPLEIN_PMA_URL: '/phpmyadmin/' },
    stdio: 'ignore',
  });
  await waitFor(() => fetch(`${phpUrl}/devplein-signon.php`).then(() => true, () => false), { description: 'PHP serving the signon script', timeoutMs: 15_000, intervalMs: 100 });
});

afterAll(async () => {
  php?.kill('SIGTERM');
  await stack?.stop();
  if (sessionDir) rmSync(sessionDir, { recursive: true, force: true });
});

async function database(session: HttpSession, suffix: string): Promise<DatabaseJson> {
  const body = await call(session, createDatabase, { body: { db: suffix } });
  const found = body.find((row) => row.name.endsWith(`_${suffix}`));
  if (!found) throw new Error(`no database ${suffix}`);
  return found;
}

const redeem = (token: string, state: string, bearer: string | null = secret) =>
  fetch(`${stack.app.url}/api/db-admin/signon`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(bearer === null ? {} : { Authorization: `Bearer ${bearer}` }) },
    body: JSON.stringify({ token, state }),
  });

/** A browser: its cookies for devplein (signed in, or not) and its own cookies for phpMyAdmin's origin. */
interface Browser {
  devplein: HttpSession;
  pma: HttpSession;
}
const browserOf = (devplein: HttpSession): Browser => ({ devplein, pma: new HttpSession(phpUrl) });

/** One request of `browser`, with the cookies of the origin it goes to. */
function visit(browser: Browser, url: string): Promise<Response> {
  const target = new URL(url, phpUrl);
  return (target.origin === new URL(phpUrl).origin ? browser.pma : browser.devplein).raw(target.toString());
}

/**
 * Follows `browser` from `url` through the redirects between devplein and the sign-on page, as a
 * browser does, until an answer that is no redirect to either, or until `stopAt` says so.
 * Returns that last answer and every address visited.
 */
async function follow(browser: Browser, url: string, stopAt: (next: URL) => boolean = () => false): Promise<{ response: Response; visited: URL[]; next?: URL }> {
  const visited: URL[] = [];
  let response = await visit(browser, url);
  visited.push(new URL(url, phpUrl));
  for (let hop = 0; hop < 6 && response.status >= 300 && response.status < 400; hop++) {
    const next = new URL(response.headers.get('location') ?? '', visited.at(-1));
    if (next.pathname.startsWith('/phpmyadmin/') || stopAt(next)) return { response, visited, next };
    response = await visit(browser, next.toString());
    visited.push(next);
  }
  return { response, visited };
}

const isTicketLink = (next: URL): boolean => next.origin === new URL(phpUrl).origin && next.searchParams.has('ticket');

/** A ticket for `session`'s database `id`, made for the browser nonce `state` (as the sign-on page asks for it). */
async function ticketFor(session: HttpSession, id: number, state: string): Promise<string> {
  const response = await session.raw(`/api/user/databases/${id}/admin?state=${state}`);
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get('location') ?? '');
  expect(`${location.origin}${location.pathname}`).toBe(`${phpUrl}/devplein-signon.php`);
  return location.searchParams.get('ticket') ?? '';
}

const newState = (): string => randomBytes(32).toString('base64url');

async function userId(session: HttpSession): Promise<number> {
  const { body } = await session.json<{ id: number }>('GET', '/api/user');
  return body.id;
}

/** The sign-in time of `user`'s live sessions (what a ticket is bound to). */
async function signedInAtOf(user: number): Promise<number> {
  const rows = await stack.database.knex('sessions').select('data').where({ user_id: user });
  const times = rows.map((row: { data: { signedInAt?: number } | string }) => (typeof row.data === 'string' ? (JSON.parse(row.data) as { signedInAt?: number }) : row.data).signedInAt);
  const found = times.find((time): time is number => typeof time === 'number');
  if (found === undefined) throw new Error(`no live session of user ${user}`);
  return found;
}

function sessionFile(signon: Response): string {
  const cookie = signon.headers.getSetCookie().find((line) => line.startsWith('DevpleinSignon='));
  expect(cookie).toMatch(/HttpOnly/i);
  const sessionId = /^DevpleinSignon=([^;]+)/.exec(cookie ?? '')?.[1] ?? '';
  return readFileSync(path.join(sessionDir, `sess_${sessionId}`), 'utf8');
}

describe('phpMyAdmin single sign-on', () => {
  it('the admin link → the sign-on page (a nonce in its cookie) → devplein (a ticket for it) → phpMyAdmin with the database open, the account in its signon session', async () => {
    const olga = await stack.as(DEVELOPER);
    const pma = await database(olga, 'pma');
    const browser = browserOf(olga);
    const { response, visited, next } = await follow(browser, `${stack.app.url}/api/user/databases/${pma.id}/admin`);
    expect(response.status).toBe(302);
    expect(next?.toString()).toBe(`${phpUrl}/phpmyadmin/?db=${pma.name}&link=true`);
    for (const url of visited) expect(url.toString()).not.toContain(pma.password);
    // The hops: devplein's link, the sign-on page's start, devplein with the nonce, the sign-on page with the ticket.
    expect(visited.map((url) => `${url.origin === phpUrl ? 'pma' : 'devplein'} ${[...url.searchParams.keys()].join(',')}`)).toEqual(['devplein ', 'pma database', 'devplein state', 'pma ticket']);
    expect(visited[2]?.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stored = sessionFile(response);
    expect(stored).toContain(`PMA_single_signon_user|s:${pma.user.length}:"${pma.user}"`);
    expect(stored).toContain(`PMA_single_signon_password|s:${pma.password.length}:"${pma.password}"`);
    expect(stored).toContain('PMA_single_signon_host|s:8:"10.8.0.1"');
    // The nonce is used up with the ticket: the same ticket link again, in the same browser, is refused.
    expect(browser.pma.cookie('DevpleinSignonState')).toBeUndefined();
    const again = await visit(browser, visited[3]?.toString() ?? '');
    expect(again.status).toBe(403);
    expect(await again.text()).toContain('Deze link is niet (meer) geldig.');
  });

  it('a ticket link a student made, opened in a teacher\'s browser, signs nobody in (login CSRF)', async () => {
    const olga = await stack.as(DEVELOPER);
    const own = await database(olga, 'lcs');
    // The student follows their own admin link up to the ticket link, and sends that to the teacher.
    const student = await follow(browserOf(olga), `${stack.app.url}/api/user/databases/${own.id}/admin`, isTicketLink);
    const link = student.next;
    if (!link || !isTicketLink(link)) throw new Error(`no ticket link: ${student.visited.join(' → ')}`);
    // The teacher's browser, signed in to devplein, with a sign-on nonce of its own.
    const teacher = browserOf(await stack.as(DOCENT));
    await visit(teacher, `${phpUrl}/devplein-signon.php?database=${own.id}`);
    for (const browser of [teacher, browserOf(await stack.anonymous())]) {
      const opened = await visit(browser, link.toString());
      expect(opened.status).toBe(403);
      expect(await opened.text()).toContain('Deze link is niet (meer) geldig.');
      expect(opened.headers.getSetCookie().some((line) => line.startsWith('DevpleinSignon='))).toBe(false);
    }
  });

  it('the redeem endpoint wants the shared secret and the browser\'s nonce, a ticket only once and only for a minute', async () => {
    const olga = await stack.as(DEVELOPER);
    const tmp = await database(olga, 'tmp');
    const state = newState();
    const ticket = await ticketFor(olga, tmp.id, state);
    expect(ticket).toMatch(/^[A-Za-z0-9_-]{60}$/);
    expect((await redeem(ticket, state, null)).status).toBe(401);
    expect((await redeem(ticket, state, 'wrong')).status).toBe(401);
    expect((await redeem('x'.repeat(60), state)).status).toBe(404);
    expect((await redeem('', state)).status).toBe(422);
    expect((await redeem(ticket, '')).status).toBe(422);
    // Another browser's nonce (or none of the right shape): refused, and the ticket is not used up by it.
    expect((await redeem(ticket, newState())).status).toBe(404);
    expect((await redeem(ticket, 'kort')).status).toBe(404);
    const first = await redeem(ticket, state);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ user: tmp.user, password: tmp.password, host: '10.8.0.1', port: 3306, db: tmp.name });
    expect((await redeem(ticket, state)).status).toBe(404);

    // Signed as the control plane signs them, for olga's live sign-in: valid now, not two minutes ago.
    const binding = { databaseId: tmp.id, userId: await userId(olga), signedInAt: await signedInAtOf(await userId(olga)) };
    const late = mintSignonTicket(Buffer.from(TEST_SESSION_SECRET), binding, state, new Date(Date.now() - 2 * 60_000));
    expect((await redeem(late, state)).status).toBe(404);
    expect((await redeem(mintSignonTicket(Buffer.from(TEST_SESSION_SECRET), binding, state), state)).status).toBe(200);
    // A forged one (another key), one for another sign-in of the owner, and one for another user: refused.
    expect((await redeem(mintSignonTicket(Buffer.from('een-andere-sleutel'), binding, state), state)).status).toBe(404);
    expect((await redeem(mintSignonTicket(Buffer.from(TEST_SESSION_SECRET), { ...binding, signedInAt: binding.signedInAt - 1 }, state), state)).status).toBe(404);
    const other = await userId(await stack.as(ADMIN));
    expect((await redeem(mintSignonTicket(Buffer.from(TEST_SESSION_SECRET), { ...binding, userId: other, signedInAt: await signedInAtOf(other) }, state), state)).status).toBe(404);

    // Concurrent redeems of one ticket: exactly one gets the account.
    const racedState = newState();
    const raced = await ticketFor(olga, tmp.id, racedState);
    const statuses = await Promise.all(Array.from({ length: 8 }, () => redeem(raced, racedState).then((response) => response.status)));
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
  });

  it('at redeem the owner must still be an active developer, signed in with the session that asked', async () => {
    const session = await stack.anonymous();
    await session.signIn(DEVELOPER);
    const db = await database(session, 'ses');
    const owner = await userId(session);
    // Developer no more (an admin's change): the ticket made before is refused; back, it works.
    const state = newState();
    const ticket = await ticketFor(session, db.id, state);
    await stack.database.knex('users').where({ id: owner }).update({ developer: false });
    try {
      expect((await redeem(ticket, state)).status).toBe(404);
    } finally {
      await stack.database.knex('users').where({ id: owner }).update({ developer: true });
    }
    expect((await redeem(ticket, state)).status).toBe(200);
    // Signed out after the ticket was made: refused.
    const lastState = newState();
    const last = await ticketFor(session, db.id, lastState);
    await session.logOut();
    expect((await redeem(last, lastState)).status).toBe(404);
  });

  it('tells the page to use the sign-on link (meta db-admin-signon); the page frames nothing and is never framed', async () => {
    const page = await (await stack.as(DEVELOPER)).raw('/databases');
    expect(await page.text()).toContain('<meta name="db-admin-signon" content="true" />');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("frame-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    // The sign-on page on phpMyAdmin's origin is never framed either, and leaks no ticket in a Referer.
    const start = await fetch(`${phpUrl}/devplein-signon.php?database=1`, { redirect: 'manual' });
    expect(start.headers.get('x-frame-options')).toBe('DENY');
    expect(start.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('only the owner (a developer) gets a ticket', async () => {
    const olga = await stack.as(DEVELOPER);
    const own = await database(olga, 'own');
    const records = async (): Promise<number> => Number((await stack.database.knex('db_admin_signons').count<{ count: string }[]>('* as count'))[0]?.count);
    const before = await records();
    const state = newState();
    const anonymous = await stack.anonymous();
    expect((await anonymous.raw(`/api/user/databases/${own.id}/admin?state=${state}`)).status).toBe(401);
    expect((await (await stack.as(STUDENT)).raw(`/api/user/databases/${own.id}/admin?state=${state}`)).status).toBe(403);
    expect((await (await stack.as(NOT_ACTIVATED)).raw(`/api/user/databases/${own.id}/admin?state=${state}`)).status).toBe(403);
    // An admin who is a developer too: someone else's database is simply not there.
    expect((await (await stack.as(ADMIN)).raw(`/api/user/databases/${own.id}/admin?state=${state}`)).status).toBe(404);
    expect((await olga.raw(`/api/user/databases/999999/admin?state=${state}`)).status).toBe(404);
    expect((await olga.raw(`/api/user/databases/abc/admin`)).status).toBe(422);
    expect((await olga.raw(`/api/user/databases/${own.id}/admin?state=kort`)).status).toBe(422);
    // Without a nonce: to the sign-on page first (which gives the browser one).
    const start = await olga.raw(`/api/user/databases/${own.id}/admin`);
    expect([start.status, start.headers.get('location')]).toEqual([302, `${phpUrl}/devplein-signon.php?database=${own.id}`]);
    expect(start.headers.get('cache-control')).toBe('no-store');
    // The link writes nothing (its ticket is signed, not stored); only a redeem records a use.
    expect((await olga.raw(`/api/user/databases/${own.id}/admin?state=${state}`)).status).toBe(302);
    expect(await records()).toBe(before);
  });
});
