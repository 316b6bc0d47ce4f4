import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import Koa from 'koa';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppState } from '../http-context.ts';
import { CachedKeygrip } from './cached-keygrip.ts';
import { sessions, type SessionStore } from './session-middleware.ts';
import type { SessionData } from './session-store.ts';

/** A store in memory that records what the middleware asked of it. */
class MemoryStore implements SessionStore {
  rows = new Map<string, SessionData>();
  calls: string[] = [];
  async get(id: string): Promise<SessionData | undefined> {
    const row = this.rows.get(id);
    // A deep copy, as a row read from the database is: a change in place reaches the store only by set.
    return row ? structuredClone(row) : undefined;
  }
  async set(id: string, data: SessionData): Promise<void> {
    this.calls.push(`set ${id}`);
    this.rows.set(id, JSON.parse(JSON.stringify(data)) as SessionData);
  }
  async destroy(id: string): Promise<void> {
    this.calls.push(`destroy ${id}`);
    this.rows.delete(id);
  }
}

let server: Server | undefined;
afterEach(() => {
  server?.close();
  server = undefined;
});

/** The middleware in front of a few routes that read or change the session. */
async function serve(store: MemoryStore): Promise<string> {
  const app = new Koa<AppState>();
  app.silent = true;
  app.keys = new CachedKeygrip(['sessiesleutel-0123456789']);
  app.use(sessions(app, store, { name: 'devplein_session', maxAgeMs: 60_000, secure: false }));
  app.use(async (ctx) => {
    const session = ctx.session;
    if (ctx.path === '/sign-in') {
      await session?.regenerate();
      if (session) session.userId = 7;
    } else if (ctx.path === '/start') {
      if (session) session.grant = { state: 'abc' };
    } else if (ctx.path === '/nested') {
      // A change inside a value, not to the session's own keys (grant keeps its state this way).
      const grant = session?.grant as { state?: string } | undefined;
      if (grant) grant.state = 'def';
    } else if (ctx.path === '/forget-grant') {
      if (session) delete session.grant;
    } else if (ctx.path === '/sign-out') {
      ctx.session = null;
    } else if (ctx.path === '/read-and-touch-nothing') {
      void session?.userId;
    }
    // The keys of the data (koa-session's toJSON: its own `isNew` and `_…` apart).
    ctx.body = { userId: ctx.session?.userId ?? null, keys: Object.keys(JSON.parse(JSON.stringify(ctx.session ?? {})) as object) };
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server?.once('listening', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The name=value pairs of an answer's Set-Cookie lines. */
const setCookies = (response: Response): Map<string, string> =>
  new Map(response.headers.getSetCookie().map((line) => {
    const pair = line.split(';')[0] ?? '';
    const at = pair.indexOf('=');
    return [pair.slice(0, at), pair.slice(at + 1)];
  }));

/** A stored row without koa-session's own `_expire` and `_maxAge`. */
const data = (row: SessionData | undefined): Record<string, unknown> | undefined =>
  row && Object.fromEntries(Object.entries(row).filter(([key]) => !key.startsWith('_')));

const cookieHeader = (cookies: Map<string, string>): string =>
  [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');

describe('sessions', () => {
  it('writes no row and sets no cookie for a request that does not change the session', async () => {
    const store = new MemoryStore();
    const base = await serve(store);
    const response = await fetch(`${base}/read-and-touch-nothing`);
    expect(await response.json()).toEqual({ userId: null, keys: [] });
    expect(store.calls).toEqual([]);
    expect(setCookies(response).size).toBe(0);
  });

  it('writes a changed session once, under a new id in a signed cookie, and reads it back', async () => {
    const store = new MemoryStore();
    const base = await serve(store);
    const first = await fetch(`${base}/start`);
    const cookies = setCookies(first);
    const id = cookies.get('devplein_session');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(cookies.get('devplein_session.sig')).toBeTruthy();
    expect(store.calls).toEqual([`set ${id}`]);
    expect(data(store.rows.get(id as string))).toEqual({ grant: { state: 'abc' } });

    // Read without a change: no write, no cookie.
    const again = await fetch(`${base}/read-and-touch-nothing`, { headers: { cookie: cookieHeader(cookies) } });
    expect(await again.json()).toEqual({ userId: null, keys: ['grant'] });
    expect(setCookies(again).size).toBe(0);
    expect(store.calls).toHaveLength(1);

    // Deleting a key is a change.
    await fetch(`${base}/forget-grant`, { headers: { cookie: cookieHeader(cookies) } });
    expect(store.calls).toEqual([`set ${id}`, `set ${id}`]);
    expect(data(store.rows.get(id as string))).toEqual({});
  });

  it('saves a change made inside a value (ctx.session.grant.state = …)', async () => {
    const store = new MemoryStore();
    const base = await serve(store);
    const cookies = setCookies(await fetch(`${base}/start`));
    const id = cookies.get('devplein_session') as string;
    await fetch(`${base}/nested`, { headers: { cookie: cookieHeader(cookies) } });
    expect(store.calls).toEqual([`set ${id}`, `set ${id}`]);
    expect(store.rows.get(id)?.grant).toEqual({ state: 'def' });
    const again = await fetch(`${base}/read-and-touch-nothing`, { headers: { cookie: cookieHeader(cookies) } });
    expect(await again.json()).toEqual({ userId: null, keys: ['grant'] });
    expect(store.rows.get(id)?.grant).toEqual({ state: 'def' });
  });

  it('gives a session a new id at regenerate, removes the old row and keeps the data', async () => {
    const store = new MemoryStore();
    const base = await serve(store);
    const cookies = setCookies(await fetch(`${base}/start`));
    const oldId = cookies.get('devplein_session') as string;
    const signedIn = await fetch(`${base}/sign-in`, { headers: { cookie: cookieHeader(cookies) } });
    const newId = setCookies(signedIn).get('devplein_session') as string;
    expect(newId).not.toBe(oldId);
    // regenerate() saves at once under the new id; the change after it is saved when the request ends.
    expect(store.calls.slice(1)).toEqual([`destroy ${oldId}`, `set ${newId}`, `set ${newId}`]);
    expect(store.rows.has(oldId)).toBe(false);
    expect(data(store.rows.get(newId))).toEqual({ grant: { state: 'abc' }, userId: 7 });
    const regenerate = (store.rows.get(newId) as Record<string, unknown>).regenerate;
    expect(regenerate).toBeUndefined();
  });

  it('removes the row and clears both cookies at ctx.session = null', async () => {
    const store = new MemoryStore();
    const base = await serve(store);
    const cookies = setCookies(await fetch(`${base}/sign-in`));
    const id = cookies.get('devplein_session') as string;
    const out = await fetch(`${base}/sign-out`, { headers: { cookie: cookieHeader(cookies) } });
    expect(await out.json()).toEqual({ userId: null, keys: [] });
    expect(store.calls.at(-1)).toBe(`destroy ${id}`);
    expect(store.rows.size).toBe(0);
    const lines = out.headers.getSetCookie();
    expect(lines.some((line) => line.startsWith('devplein_session=;') && /expires=Thu, 01 Jan 1970/i.test(line))).toBe(true);
    expect(lines.some((line) => line.startsWith('devplein_session.sig='))).toBe(true);
  });

  it('never takes on an id it does not know, nor one with a wrong signature', async () => {
    const store = new MemoryStore();
    const base = await serve(store);
    // A planted id with a valid signature (the attacker cannot sign, but the id may be stale).
    const valid = setCookies(await fetch(`${base}/start`));
    store.rows.clear();
    const planted = await fetch(`${base}/sign-in`, { headers: { cookie: cookieHeader(valid) } });
    const givenId = setCookies(planted).get('devplein_session');
    expect(givenId).not.toBe(valid.get('devplein_session'));
    expect(data(store.rows.get(givenId as string))).toEqual({ userId: 7 });

    // A known id with a forged signature reads as no session.
    const forged = new Map(valid);
    forged.set('devplein_session', givenId as string);
    const read = await fetch(`${base}/read-and-touch-nothing`, { headers: { cookie: cookieHeader(forged) } });
    expect(await read.json()).toEqual({ userId: null, keys: [] });
  });
});
