/**
 * Signing a student straight into phpMyAdmin for one database (beyond the spec): the admin link
 * makes a one-time ticket, the real signon script of deploy/phpmyadmin (run by PHP's own web
 * server) redeems it at the control plane and writes phpMyAdmin's signon session. The password
 * never appears in a URL; a ticket works once, for its owner's database only.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, DEVELOPER, NOT_ACTIVATED, STUDENT, startHostingStack, type HostingStack } from '../../support/hosting-stack.ts';
import { HttpSession } from '../../support/http-session.ts';
import { findFreePort, waitFor } from '../../support/ports.ts';
import { findExecutable } from '../../support/system-deps.ts';
import { TEST_SESSION_SECRET } from '../../support/control-plane.ts';
import { mintSignonTicket } from '../../../control-plane/src/lib/db-admin-ticket.ts';

interface DatabaseJson {
  id: number;
  name: string;
  user: string;
  password: string;
}

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
  const { status, body } = await session.json<DatabaseJson[]>('POST', '/api/user/databases', { db: suffix });
  expect(status).toBe(200);
  const found = body.find((row) => row.name.endsWith(`_${suffix}`));
  if (!found) throw new Error(`no database ${suffix}`);
  return found;
}

const redeem = (token: string, bearer: string | null = secret) =>
  fetch(`${stack.app.url}/api/db-admin/signon`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(bearer === null ? {} : { Authorization: `Bearer ${bearer}` }) },
    body: JSON.stringify({ token }),
  });

async function ticketFor(session: HttpSession, id: number): Promise<string> {
  const response = await session.raw(`/api/user/databases/${id}/admin`);
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get('location') ?? '');
  expect(`${location.origin}${location.pathname}`).toBe(`${phpUrl}/devplein-signon.php`);
  return location.searchParams.get('ticket') ?? '';
}

describe('phpMyAdmin single sign-on', () => {
  it('the admin link → the signon script → phpMyAdmin with the database open, the account in its signon session', async () => {
    const olga = await stack.as(DEVELOPER);
    const pma = await database(olga, 'pma');
    const admin = await olga.raw(`/api/user/databases/${pma.id}/admin`);
    expect(admin.status).toBe(302);
    const location = admin.headers.get('location') ?? '';
    expect(location).not.toContain(pma.password);
    expect(admin.headers.get('cache-control')).toBe('no-store');

    // The browser follows to the signon script (its own cookie jar: another site).
    const signon = await fetch(location, { redirect: 'manual' });
    expect(signon.status).toBe(302);
    expect(signon.headers.get('location')).toBe(`/phpmyadmin/?db=${pma.name}&link=true`);
    const cookie = signon.headers.getSetCookie().find((line) => line.startsWith('DevpleinSignon='));
    expect(cookie).toMatch(/HttpOnly/i);
    const sessionId = /^DevpleinSignon=([^;]+)/.exec(cookie ?? '')?.[1] ?? '';
    const stored = readFileSync(path.join(sessionDir, `sess_${sessionId}`), 'utf8');
    expect(stored).toContain(`PMA_single_signon_user|s:${pma.user.length}:"${pma.user}"`);
    expect(stored).toContain(`PMA_single_signon_password|s:${pma.password.length}:"${pma.password}"`);
    expect(stored).toContain('PMA_single_signon_host|s:8:"10.8.0.1"');

    // The same link again: the ticket is used up.
    const again = await fetch(location, { redirect: 'manual' });
    expect(again.status).toBe(403);
    expect(await again.text()).toContain('Deze link is niet (meer) geldig.');
  });

  it('the redeem endpoint wants the shared secret, and a ticket only once and only for a minute', async () => {
    const olga = await stack.as(DEVELOPER);
    const tmp = await database(olga, 'tmp');
    const ticket = await ticketFor(olga, tmp.id);
    expect((await redeem(ticket, null)).status).toBe(401);
    expect((await redeem(ticket, 'wrong')).status).toBe(401);
    expect((await redeem('x'.repeat(43))).status).toBe(404);
    expect((await redeem('')).status).toBe(422);
    const first = await redeem(ticket);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ user: tmp.user, password: tmp.password, host: '10.8.0.1', port: 3306, db: tmp.name });
    expect((await redeem(ticket)).status).toBe(404);

    // A ticket made two minutes ago (signed as the control plane signs them) has expired.
    const late = mintSignonTicket(Buffer.from(TEST_SESSION_SECRET), { id: tmp.id }, new Date(Date.now() - 2 * 60_000));
    expect((await redeem(late)).status).toBe(404);
    // A forged one (another key) and one spelled differently (same bytes) are refused too.
    expect((await redeem(mintSignonTicket(Buffer.from('een-andere-sleutel'), { id: tmp.id }))).status).toBe(404);
    const spelled = await ticketFor(olga, tmp.id);
    const last = spelled.at(-1) ?? 'A';
    const variant = `${spelled.slice(0, -1)}${'AEIMQUYcgkosw048'.includes(last) ? String.fromCharCode(last.charCodeAt(0) + 1) : last}`;
    expect(Buffer.from(variant, 'base64url').equals(Buffer.from(spelled, 'base64url'))).toBe(true);
    expect((await redeem(variant)).status).toBe(404);
    expect((await redeem(spelled)).status).toBe(200);

    // Concurrent redeems of one ticket: exactly one gets the account.
    const raced = await ticketFor(olga, tmp.id);
    const statuses = await Promise.all(Array.from({ length: 8 }, () => redeem(raced).then((response) => response.status)));
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
  });

  it('tells the page to use the sign-on link (meta db-admin-signon)', async () => {
    const html = await (await (await stack.as(DEVELOPER)).raw('/databases')).text();
    expect(html).toContain('<meta name="db-admin-signon" content="true" />');
  });

  it('only the owner (a developer) gets a ticket', async () => {
    const olga = await stack.as(DEVELOPER);
    const own = await database(olga, 'own');
    const records = async (): Promise<number> => Number((await stack.database.knex('db_admin_signons').count<{ count: string }[]>('* as count'))[0]?.count);
    const before = await records();
    const anonymous = await stack.anonymous();
    expect((await anonymous.raw(`/api/user/databases/${own.id}/admin`)).status).toBe(401);
    expect((await (await stack.as(STUDENT)).raw(`/api/user/databases/${own.id}/admin`)).status).toBe(403);
    expect((await (await stack.as(NOT_ACTIVATED)).raw(`/api/user/databases/${own.id}/admin`)).status).toBe(403);
    // An admin who is a developer too: someone else's database is simply not there.
    expect((await (await stack.as(ADMIN)).raw(`/api/user/databases/${own.id}/admin`)).status).toBe(404);
    expect((await olga.raw(`/api/user/databases/999999/admin`)).status).toBe(404);
    expect((await olga.raw(`/api/user/databases/abc/admin`)).status).toBe(422);
    // The link writes nothing (its ticket is signed, not stored); only a redeem records a use.
    expect((await olga.raw(`/api/user/databases/${own.id}/admin`)).status).toBe(302);
    expect(await records()).toBe(before);
  });
});
