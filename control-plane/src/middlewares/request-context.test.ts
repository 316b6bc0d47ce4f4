import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import Koa from 'koa';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppState } from '../http-context.ts';
import { createKnex } from '../db/knex.ts';
import { DATABASE_UNAVAILABLE_MESSAGE } from '../db/database-errors.ts';
import { requestContext } from './request-context.ts';

/** A loopback port nothing listens on: taken, then released. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

let server: Server;
let base: string;
let knex: ReturnType<typeof createKnex>;

beforeAll(async () => {
  // The real pg driver against a database that is not there, as while PostgreSQL restarts.
  knex = createKnex({ databaseUrl: `postgres://postgres@127.0.0.1:${await closedPort()}/devplein`, dataDir: '.' });
  const app = new Koa<AppState>();
  app.silent = true;
  app.use(requestContext(pino({ level: 'silent' })));
  app.use(async (ctx) => {
    if (ctx.path === '/query') ctx.body = await knex.raw('select 1');
    else throw new Error('boom');
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.close();
  await knex.destroy();
});

describe('requestContext', () => {
  it('answers 503 with a Dutch message when the database does not answer', async () => {
    const response = await fetch(`${base}/query`);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(await response.json()).toEqual({ message: DATABASE_UNAVAILABLE_MESSAGE });
  });

  it('keeps a plain 500 for other failures', async () => {
    const response = await fetch(`${base}/other`);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ message: 'Er ging iets mis aan onze kant. Probeer het later opnieuw.' });
  });
});
