/**
 * The host agent's DatabaseService (host-agent/src/services/database-service.ts) on a real
 * MariaDB through the real agent. Each describe starts its own agent and MariaDB: they count
 * schemas, accounts and connections, which must not see each other's.
 */
import * as grpc from '@grpc/grpc-js';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseServiceClient, CreateDatabaseResponse, DropDatabaseResponse, AccountLock } from '@devplein/proto/database';
import { CONTRACT_VERSION, CONTRACT_VERSION_METADATA_KEY } from '@devplein/proto/version';
import { type DatabaseAgent, startDatabaseAgent } from '../../support/services/database-agent.ts';
import { type TestMariaDb, openConnectionsOf } from '../../support/services/mariadb.ts';
import { refusal, unaryCall } from '../../support/clients/agent-calls.ts';
import { waitFor } from '../../support/clients/ports.ts';

/**
 * Student databases end to end on a real MariaDB: the real host agent (gRPC over mutual TLS)
 * makes a database and an account with privileges on that database only, and the test logs in
 * as that account to see what it can and cannot do.
 */
describe('the agent’s DatabaseService on a real MariaDB', { timeout: 60_000 }, () => {
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

/**
 * DatabaseService.LockAccounts / UnlockAccounts (contract 1.2.0) on a real MariaDB through the
 * real agent: a locked account's open connection is gone and a new login is refused with
 * MariaDB's "this account is locked"; unlocked, the same password works again and the data is
 * still there. Missing accounts are reported, bad names refused before any SQL.
 */
describe('locking and unlocking student accounts on a real MariaDB', { timeout: 60_000 }, () => {
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

/**
 * AGENT_MYSQL_MAX_USER_CONNECTIONS (default 10) on a real MariaDB through the real agent: a
 * student account made by the agent takes 10 connections and MariaDB refuses the 11th; an
 * account made before the setting (here: by root, without a limit) gets the limit when the
 * agent starts, and when it is unlocked.
 */
describe('student accounts have a connection limit on a real MariaDB', { timeout: 60_000 }, () => {
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
