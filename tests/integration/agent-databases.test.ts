/**
 * Student databases end to end on a real MariaDB: the real host agent (gRPC over mutual TLS)
 * makes a database and an account with privileges on that database only, and the test logs in
 * as that account to see what it can and cannot do.
 */
import * as grpc from '@grpc/grpc-js';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseServiceClient, CreateDatabaseResponse, DropDatabaseResponse } from '@devplein/proto/database';
import { CONTRACT_VERSION, CONTRACT_VERSION_METADATA_KEY } from '@devplein/proto/version';
import { type DatabaseAgent, startDatabaseAgent } from '../support/database-agent.ts';
import type { TestMariaDb } from '../support/mariadb.ts';

let stack: DatabaseAgent;
let mariadb: TestMariaDb;
let client: DatabaseServiceClient;

beforeAll(async () => {
  stack = await startDatabaseAgent('devplein-agent-db-');
  ({ mariadb, client } = stack);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

function metadata(): grpc.Metadata {
  const value = new grpc.Metadata();
  value.set(CONTRACT_VERSION_METADATA_KEY, CONTRACT_VERSION);
  return value;
}
const options = () => ({ deadline: new Date(Date.now() + 15_000) });

function create(name: string, user = name): Promise<CreateDatabaseResponse> {
  return new Promise((resolve, reject) => {
    client.createDatabase({ name, user, ownerUserId: 1 }, metadata(), options(), (error, response) => (error ? reject(error) : resolve(response)));
  });
}
function drop(name: string, user = name): Promise<DropDatabaseResponse> {
  return new Promise((resolve, reject) => {
    client.dropDatabase({ name, user }, metadata(), options(), (error, response) => (error ? reject(error) : resolve(response)));
  });
}
function list(namePrefix = ''): Promise<Array<{ name: string; user: string }>> {
  return new Promise((resolve, reject) => {
    client.listDatabases({ namePrefix }, metadata(), options(), (error, response) => (error ? reject(error) : resolve(response.databases)));
  });
}
async function refusal(promise: Promise<unknown>): Promise<grpc.ServiceError> {
  try {
    await promise;
  } catch (error) {
    return error as grpc.ServiceError;
  }
  throw new Error('the call succeeded');
}

/** A session as the student account, over TCP like a project or a VPN client would. */
function connectAs(user: string, password: string, database?: string): Promise<mysql.Connection> {
  return mysql.createConnection({ host: '127.0.0.1', port: mariadb.port, user, password, database });
}

async function schemas(): Promise<string[]> {
  const root = await mariadb.root();
  try {
    const [rows] = await root.query<mysql.RowDataPacket[]>('SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA ORDER BY 1');
    return rows.map((row) => String(row.name));
  } finally {
    await root.end();
  }
}
async function accounts(): Promise<string[]> {
  const root = await mariadb.root();
  try {
    const [rows] = await root.query<mysql.RowDataPacket[]>("SELECT CONCAT(User, '@', Host) AS account FROM mysql.user ORDER BY 1");
    return rows.map((row) => String(row.account));
  } finally {
    await root.end();
  }
}
async function asRoot(sql: string, values: unknown[] = []): Promise<void> {
  const root = await mariadb.root();
  try {
    await root.query(sql, values);
  } finally {
    await root.end();
  }
}

describe('the agent’s DatabaseService on a real MariaDB', { timeout: 60_000 }, () => {
  it('makes a database and an account that can work in it, and nowhere else', async () => {
    const mine = await create('u901_abc');
    const other = await create('u902_abc');
    expect(mine.database).toEqual({ name: 'u901_abc', user: 'u901_abc' });
    expect(mine.password).toMatch(/^[A-Za-z0-9]{24}$/);
    expect(mine.password).not.toBe(other.password);

    const session = await connectAs('u901_abc', mine.password, 'u901_abc');
    try {
      await session.query('CREATE TABLE notes (id INT PRIMARY KEY, text VARCHAR(40))');
      await session.query("INSERT INTO notes VALUES (1, 'hallo')");
      const [rows] = await session.query<mysql.RowDataPacket[]>('SELECT text FROM notes');
      expect(rows.map((row) => row.text)).toEqual(['hallo']);

      const [visible] = await session.query<mysql.RowDataPacket[]>('SHOW DATABASES');
      expect(visible.map((row) => row.Database)).toEqual(expect.not.arrayContaining(['u902_abc', 'mysql']));
      const denied = { code: expect.stringMatching(/^ER_(DB|TABLE)ACCESS_DENIED_ERROR$/) };
      await expect(session.query('SELECT 1 FROM u902_abc.dual_check')).rejects.toMatchObject(denied);
      await expect(session.query('CREATE TABLE u902_abc.t (id INT)')).rejects.toMatchObject(denied);
      await expect(session.query('USE u902_abc')).rejects.toMatchObject(denied);
      await expect(session.query('CREATE DATABASE u901_extra')).rejects.toMatchObject(denied);
      await expect(session.query('SELECT User FROM mysql.user')).rejects.toMatchObject({ errno: expect.any(Number) });

      const [grants] = await session.query<mysql.RowDataPacket[]>('SHOW GRANTS');
      const text = grants.map((row) => String(Object.values(row)[0])).join('\n');
      expect(text).toContain('GRANT ALL PRIVILEGES ON `u901\\_abc`.*');
      expect(text).not.toMatch(/WITH GRANT OPTION/);
      expect(text).not.toMatch(/ON \*\.\* .*(ALL|SELECT|CREATE)/);
    } finally {
      await session.end();
    }
  });

  it('escapes the grant wildcards: a grant on u903_ab does not open u903xab', async () => {
    const { password } = await create('u903_ab');
    await asRoot('CREATE DATABASE u903xab');
    await asRoot('CREATE TABLE u903xab.secret (id INT)');
    const session = await connectAs('u903_ab', password);
    try {
      await expect(session.query('SELECT * FROM u903xab.secret')).rejects.toMatchObject({ code: 'ER_TABLEACCESS_DENIED_ERROR' });
      await expect(session.query('USE u903xab')).rejects.toMatchObject({ code: 'ER_DBACCESS_DENIED_ERROR' });
    } finally {
      await session.end();
      await asRoot('DROP DATABASE u903xab');
    }
  });

  it('refuses a name that exists (database or account) and changes nothing', async () => {
    const first = await create('u904_abc');
    const again = await refusal(create('u904_abc'));
    expect(again.code).toBe(grpc.status.ALREADY_EXISTS);
    const stillWorks = await connectAs('u904_abc', first.password, 'u904_abc');
    await stillWorks.end();

    await asRoot("CREATE USER 'u905_abc'@'%' IDENTIFIED BY 'not-the-agents'");
    const accountTaken = await refusal(create('u905_abc'));
    expect(accountTaken.code).toBe(grpc.status.ALREADY_EXISTS);
    expect(await schemas()).not.toContain('u905_abc');
    await asRoot("DROP USER 'u905_abc'@'%'");
  });

  it.each(['', 'U1_abc', 'abcd`x', "u1_a'b", 'u1_äbc', 'u1 abc', 'x'.repeat(65), 'mysql', 'u1_abc;drop', '%', '_'.repeat(3) + '%'])(
    'refuses the name %j with INVALID_ARGUMENT and makes nothing',
    async (name) => {
      const before = { schemas: await schemas(), accounts: await accounts() };
      const error = await refusal(create(name));
      expect(error.code).toBe(grpc.status.INVALID_ARGUMENT);
      expect({ schemas: await schemas(), accounts: await accounts() }).toEqual(before);
    },
  );

  it('drops database and account (ending its sessions), and dropping again is fine', async () => {
    const { password } = await create('u906_abc');
    const session = await connectAs('u906_abc', password, 'u906_abc');
    expect(await drop('u906_abc')).toEqual({ databaseDropped: true, userDropped: true });
    await expect(session.query('SELECT 1')).rejects.toBeDefined();
    session.destroy();
    expect(await schemas()).not.toContain('u906_abc');
    expect(await accounts()).not.toContain('u906_abc@%');
    await expect(connectAs('u906_abc', password)).rejects.toMatchObject({ code: 'ER_ACCESS_DENIED_ERROR' });
    expect(await drop('u906_abc')).toEqual({ databaseDropped: false, userDropped: false });
  });

  it('lists the student databases by prefix, without system schemas', async () => {
    await create('u907_aaa');
    await create('u907_bbb');
    expect(await list('u907_')).toEqual([
      { name: 'u907_aaa', user: 'u907_aaa' },
      { name: 'u907_bbb', user: 'u907_bbb' },
    ]);
    const all = (await list()).map((database) => database.name);
    expect(all).toEqual(expect.arrayContaining(['u901_abc', 'u907_aaa']));
    expect(all).not.toContain('mysql');
  });

  it('leaves nothing half made when a step after CREATE DATABASE fails', async () => {
    // The admin account loses GRANT OPTION: database and account are made, the GRANT is refused,
    // so the agent must drop both again.
    await asRoot("REVOKE GRANT OPTION ON *.* FROM 'devplein_agent'@'127.0.0.1'");
    const root = await mariadb.root();
    const [sessions] = await root.query<mysql.RowDataPacket[]>("SELECT ID FROM information_schema.PROCESSLIST WHERE USER = 'devplein_agent'");
    for (const row of sessions) await root.query('KILL CONNECTION ?', [Number(row.ID)]).catch(() => undefined);
    await root.end();
    try {
      const error = await refusal(create('u908_abc'));
      expect(error.code).toBe(grpc.status.INTERNAL);
      expect(await schemas()).not.toContain('u908_abc');
      expect(await accounts()).not.toContain('u908_abc@%');
    } finally {
      await asRoot("GRANT ALL PRIVILEGES ON *.* TO 'devplein_agent'@'127.0.0.1' WITH GRANT OPTION");
    }
  });

  it('answers UNAVAILABLE while MariaDB is down, and works again when it is back', async () => {
    await mariadb.halt();
    try {
      const error = await refusal(create('u909_abc'));
      expect(error.code).toBe(grpc.status.UNAVAILABLE);
      expect(error.details).toMatch(/does not answer/);
    } finally {
      await mariadb.resume();
    }
    const made = await create('u909_abc');
    expect(made.database?.name).toBe('u909_abc');
    expect(await schemas()).toContain('u909_abc');
  });
});
