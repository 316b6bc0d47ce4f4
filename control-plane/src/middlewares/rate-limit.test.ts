import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import Koa from 'koa';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppState } from '../http-context.ts';
import type { CurrentUser } from '../queries/current-user.ts';
import { isSignInStart, signInRateLimit, writeRateLimit } from './rate-limit.ts';

let server: Server | undefined;
afterEach(() => {
  server?.close();
  server = undefined;
});

const user = (id: number): CurrentUser => ({
  id,
  name: `u${id}`,
  name_slug: `u${id}`,
  email: `u${id}@x.test`,
  email_verified_at: new Date(),
  disabled_at: null,
  admin: false,
  developer: true,
  group: null,
  teams: [],
});

/** An app whose user comes from the X-User header (as loadUser would put it on ctx.state). */
async function serve(middleware: Koa.Middleware<AppState>, proxy = false): Promise<string> {
  const app = new Koa<AppState>({ proxy, maxIpsCount: 1 });
  app.use(async (ctx, next) => {
    ctx.state.log = pino({ level: 'silent' });
    const id = Number(ctx.get('X-User'));
    ctx.state.user = id > 0 ? user(id) : null;
    await next();
  });
  app.use(middleware);
  app.use((ctx) => {
    ctx.body = { ok: true };
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server?.once('listening', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('isSignInStart', () => {
  it('is the provider path only, not its callback', () => {
    expect(isSignInStart('/auth/school')).toBe(true);
    expect(isSignInStart('/auth/school/callback')).toBe(false);
    expect(isSignInStart('/api/user')).toBe(false);
  });
});

describe('signInRateLimit', () => {
  it('answers 429 with Retry-After and a Dutch message after the limit, per address', async () => {
    const base = await serve(signInRateLimit({ points: 3 }), true);
    for (let i = 0; i < 3; i++) expect((await fetch(`${base}/auth/school`)).status).toBe(200);
    const blocked = await fetch(`${base}/auth/school`, { headers: { Accept: 'text/html' } });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(blocked.headers.get('content-type')).toContain('text/plain');
    expect(await blocked.text()).toMatch(/^Te veel inlogpogingen vanaf dit adres\. Wacht \d+ seconden?/);
    // The callback and other paths are not counted.
    expect((await fetch(`${base}/auth/school/callback`)).status).toBe(200);
    // With TRUST_PROXY the address is the proxy's X-Forwarded-For entry: another client has its own budget.
    expect((await fetch(`${base}/auth/school`, { headers: { 'X-Forwarded-For': '10.0.0.9' } })).status).toBe(200);
    // A forged first entry does not help: the last one (added by the proxy) counts.
    const forged = await fetch(`${base}/auth/school`, { headers: { 'X-Forwarded-For': '1.2.3.4, 127.0.0.1' } });
    expect(forged.status).toBe(429);
  });

  it('ignores X-Forwarded-For without TRUST_PROXY', async () => {
    const base = await serve(signInRateLimit({ points: 1 }), false);
    expect((await fetch(`${base}/auth/school`)).status).toBe(200);
    expect((await fetch(`${base}/auth/school`, { headers: { 'X-Forwarded-For': '10.0.0.9' } })).status).toBe(429);
  });

  it('is off with 0', async () => {
    const base = await serve(signInRateLimit({ points: 0 }));
    for (let i = 0; i < 5; i++) expect((await fetch(`${base}/auth/school`)).status).toBe(200);
  });
});

describe('writeRateLimit', () => {
  it('counts unsafe API requests per signed-in user and answers 429 JSON', async () => {
    const base = await serve(writeRateLimit({ points: 2 }));
    const post = (userId: number, path = '/api/x') => fetch(`${base}${path}`, { method: 'POST', headers: { 'X-User': String(userId) } });
    expect((await post(1)).status).toBe(200);
    expect((await post(1)).status).toBe(200);
    const blocked = await post(1);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = (await blocked.json()) as { message: string; retryAfter: number };
    expect(body.message).toMatch(/^Je voert te veel wijzigingen kort na elkaar uit\./);
    expect(body.retryAfter).toBeGreaterThan(0);
    // Reads, another user, anonymous requests and realtime authorization are not counted.
    expect((await fetch(`${base}/api/x`, { headers: { 'X-User': '1' } })).status).toBe(200);
    expect((await post(2)).status).toBe(200);
    expect((await post(0)).status).toBe(200);
    expect((await post(1, '/broadcasting/auth')).status).toBe(200);
  });
});
