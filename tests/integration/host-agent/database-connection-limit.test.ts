/**
 * AGENT_MYSQL_MAX_USER_CONNECTIONS (default 10) on a real MariaDB through the real agent: a
 * student account made by the agent takes 10 connections and MariaDB refuses the 11th; an
 * account made before the setting (here: by root, without a limit) gets the limit when the
 * agent starts, and when it is unlocked.
 */
import * as grpc from '@grpc/grpc-js';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseServiceClient } from '@devplein/proto/database';
import { refusal, unaryCall } from '../../support/agent-calls.ts';
import { type DatabaseAgent, startDatabaseAgent } from '../../support/database-agent.ts';
import type { TestMariaDb } from '../../support/mariadb.ts';
import { waitFor } from '../../support/ports.ts';

let stack: DatabaseAgent;
let mariadb: TestMariaDb;
let client: DatabaseServiceClient;
const opened: mysql.Connection[] = [];

beforeAll(async () => {
  stack = await startDatabaseAgent('devplein-agent-db-limit-');
  ({ mariadb, client } = stack);
}, 120_000);

afterAll(async () => {
  await Promise.all(opened.map((connection) => connection.end().catch(() => undefined)));
  await stack?.stop();
});

const create = (name: string) => unaryCall(client, client.createDatabase, { name, user: name, ownerUserId: 1 });

async function connectAs(user: string, password: string): Promise<mysql.Connection> {
  const connection = await mysql.createConnection({ host: '127.0.0.1', port: mariadb.port, user, password });
  opened.push(connection);
  return connection;
}

/** The account's own MAX_USER_CONNECTIONS as MariaDB stores it (0: none of its own). */
async function limitOf(user: string): Promise<number> {
  const root = await mariadb.root();
  try {
    const [rows] = await root.query<mysql.RowDataPacket[]>("SELECT max_user_connections AS n FROM mysql.user WHERE User = ? AND Host = '%'", [user]);
    return Number(rows[0]?.n);
  } finally {
    await root.end();
  }
}

/** An account as an agent before this setting made it: no limit of its own. */
async function accountWithoutLimit(user: string, password: string): Promise<void> {
  const root = await mariadb.root();
  try {
    await root.query("CREATE USER ?@'%' IDENTIFIED BY ?", [user, password]);
  } finally {
    await root.end();
  }
}

describe('student accounts have a connection limit on a real MariaDB', { timeout: 60_000 }, () => {
  it('a new account takes 10 connections; MariaDB refuses the 11th, and takes one again after a close', async () => {
    const { password } = await create('u941_abc');
    const ten = await Promise.all(Array.from({ length: 10 }, () => connectAs('u941_abc', password)));
    for (const connection of ten) await connection.query('SELECT 1');
    await expect(connectAs('u941_abc', password)).rejects.toMatchObject({ code: 'ER_USER_LIMIT_REACHED', message: expect.stringMatching(/max_user_connections/) });
    expect(await limitOf('u941_abc')).toBe(10);
    await ten[0]?.end();
    await waitFor(
      async () => {
        const next = await connectAs('u941_abc', password).catch(() => undefined);
        return next !== undefined;
      },
      { description: 'a free connection slot after a close', timeoutMs: 10_000, intervalMs: 100 },
    );
  });

  it('an account made before the limit gets it when the agent starts, and when it is unlocked; other accounts are left alone', async () => {
    await accountWithoutLimit('u942_abc', 'old-password-1');
    await accountWithoutLimit('u943_abc', 'old-password-2');
    await accountWithoutLimit('reporting', 'not-a-student');
    expect(await limitOf('u942_abc')).toBe(0);
    await stack.agent.restart();
    // One pass over the accounts: once both students have the limit, it has seen `reporting` too.
    await waitFor(async () => (await limitOf('u942_abc')) === 10 && (await limitOf('u943_abc')) === 10, {
      description: 'the start-up ALTER USER',
      timeoutMs: 20_000,
      intervalMs: 200,
    });
    expect(await limitOf('reporting')).toBe(0);
    expect((await refusal(unaryCall(client, client.unlockAccounts, { users: ['reporting'] }))).code).toBe(grpc.status.INVALID_ARGUMENT);

    const root = await mariadb.root();
    try {
      await root.query("ALTER USER 'u943_abc'@'%' WITH MAX_USER_CONNECTIONS 0");
    } finally {
      await root.end();
    }
    expect((await unaryCall(client, client.unlockAccounts, { users: ['u943_abc'] })).accounts).toEqual([{ user: 'u943_abc', found: true, killedConnections: 0 }]);
    expect(await limitOf('u943_abc')).toBe(10);
  });
});
