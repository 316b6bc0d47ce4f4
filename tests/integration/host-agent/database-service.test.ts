/**
 * DatabaseService.LockAccounts / UnlockAccounts (contract 1.2.0) on a real MariaDB through the
 * real agent: a locked account's open connection is gone and a new login is refused with
 * MariaDB's "this account is locked"; unlocked, the same password works again and the data is
 * still there. Missing accounts are reported, bad names refused before any SQL.
 */
import * as grpc from '@grpc/grpc-js';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountLock, DatabaseServiceClient } from '@devplein/proto/database';
import { refusal, unaryCall } from '../../support/agent-calls.ts';
import { type DatabaseAgent, startDatabaseAgent } from '../../support/database-agent.ts';
import { openConnectionsOf, type TestMariaDb } from '../../support/mariadb.ts';
import { waitFor } from '../../support/ports.ts';

let stack: DatabaseAgent;
let mariadb: TestMariaDb;
let client: DatabaseServiceClient;

beforeAll(async () => {
  stack = await startDatabaseAgent('devplein-agent-db-lock-');
  ({ mariadb, client } = stack);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const create = (name: string) => unaryCall(client, client.createDatabase, { name, user: name, ownerUserId: 1 });
const lock = async (users: string[]): Promise<AccountLock[]> => (await unaryCall(client, client.lockAccounts, { users })).accounts;
const unlock = async (users: string[]): Promise<AccountLock[]> => (await unaryCall(client, client.unlockAccounts, { users })).accounts;

function connectAs(user: string, password: string, database?: string): Promise<mysql.Connection> {
  return mysql.createConnection({ host: '127.0.0.1', port: mariadb.port, user, password, database });
}

/** Whether MariaDB records the account as locked (mysql.global_priv's account_locked). */
async function isLocked(user: string): Promise<boolean> {
  const root = await mariadb.root();
  try {
    const [rows] = await root.query<mysql.RowDataPacket[]>("SELECT JSON_VALUE(Priv, '$.account_locked') AS locked FROM mysql.global_priv WHERE User = ?", [user]);
    return String(rows[0]?.locked) === '1';
  } finally {
    await root.end();
  }
}

const connectionsOf = (user: string): Promise<number> => openConnectionsOf(mariadb, user);

describe('locking and unlocking student accounts on a real MariaDB', { timeout: 60_000 }, () => {
  it('ends the open connections and refuses new logins; unlock gives back the same access and data', async () => {
    const made = await create('u931_abc');
    const other = await create('u932_abc');
    const session = await connectAs('u931_abc', made.password, 'u931_abc');
    const second = await connectAs('u931_abc', made.password, 'u931_abc');
    const bystander = await connectAs('u932_abc', other.password, 'u932_abc');
    await session.query('CREATE TABLE notes (id INT PRIMARY KEY, text VARCHAR(20))');
    await session.query("INSERT INTO notes VALUES (1, 'bewaard')");
    expect(await connectionsOf('u931_abc')).toBe(2);

    expect(await lock(['u931_abc'])).toEqual([{ user: 'u931_abc', found: true, killedConnections: 2 }]);
    expect(await isLocked('u931_abc')).toBe(true);
    // The open connection is gone: its next statement fails, without a sleep in between.
    await expect(session.query('SELECT 1')).rejects.toThrow();
    await expect(second.query('SELECT 1')).rejects.toThrow();
    await waitFor(async () => (await connectionsOf('u931_abc')) === 0, { description: 'the killed connections to leave the process list', timeoutMs: 10_000 });
    await expect(connectAs('u931_abc', made.password)).rejects.toThrow(/this account is locked/);
    // Another student's connection is untouched.
    expect((await bystander.query<mysql.RowDataPacket[]>('SELECT 1 AS one'))[0][0]?.one).toBe(1);

    // Locking again is fine (nothing left to kill).
    expect(await lock(['u931_abc'])).toEqual([{ user: 'u931_abc', found: true, killedConnections: 0 }]);

    expect(await unlock(['u931_abc'])).toEqual([{ user: 'u931_abc', found: true, killedConnections: 0 }]);
    expect(await isLocked('u931_abc')).toBe(false);
    const back = await connectAs('u931_abc', made.password, 'u931_abc');
    const [rows] = await back.query<mysql.RowDataPacket[]>('SELECT text FROM notes');
    expect(rows.map((row) => row.text)).toEqual(['bewaard']);
    await back.end();
    await bystander.end();
    session.destroy();
    second.destroy();
  });

  it('reports an account that does not exist instead of failing, and does the rest', async () => {
    await create('u933_abc');
    expect(await lock(['u933_nop', 'u933_abc'])).toEqual([
      { user: 'u933_nop', found: false, killedConnections: 0 },
      { user: 'u933_abc', found: true, killedConnections: 0 },
    ]);
    expect(await isLocked('u933_abc')).toBe(true);
    expect(await unlock(['u933_nop', 'u933_abc'])).toEqual([
      { user: 'u933_nop', found: false, killedConnections: 0 },
      { user: 'u933_abc', found: true, killedConnections: 0 },
    ]);
    expect(await lock([])).toEqual([]);
  });

  it('refuses names outside the whitelist with INVALID_ARGUMENT before touching any account', async () => {
    await create('u934_abc');
    for (const bad of ["u934_abc' OR '1'='1", 'root', 'U934_ABC', 'u934-abc', '', 'a'.repeat(33), 'mysql_x']) {
      expect((await refusal(lock(['u934_abc', bad]))).code, bad).toBe(grpc.status.INVALID_ARGUMENT);
      expect((await refusal(unlock([bad]))).code, bad).toBe(grpc.status.INVALID_ARGUMENT);
    }
    expect(await isLocked('u934_abc')).toBe(false);
    expect((await refusal(lock(Array.from({ length: 101 }, (_, index) => `u934_${index}`)))).code).toBe(grpc.status.INVALID_ARGUMENT);
  });
});
