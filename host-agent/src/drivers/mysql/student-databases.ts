import { randomInt } from 'node:crypto';
import type mysql from 'mysql2/promise';
import type { Logger } from 'pino';
import { checkDatabaseAndUser, checkUserName, grantDatabasePattern, isSystemSchema, likePrefix, quotedIdentifier, STUDENT_NAME, StudentNameError } from './student-database-names.ts';

/** Letters and digits only: a password that survives every config file and shell a student pastes it in. */
const PASSWORD_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
/** 24 characters of 56: about 139 bits. */
export const PASSWORD_LENGTH = 24;

export function randomPassword(length = PASSWORD_LENGTH): string {
  let password = '';
  for (let index = 0; index < length; index += 1) password += PASSWORD_ALPHABET[randomInt(PASSWORD_ALPHABET.length)];
  return password;
}

/** The database or the account is already there (the caller decides what that means). */
export class StudentDatabaseExistsError extends Error {
  override name = 'StudentDatabaseExistsError';
}

/** The MySQL server is not configured or does not answer. */
export class DatabaseServerUnavailableError extends Error {
  override name = 'DatabaseServerUnavailableError';
}

/** What a lock or unlock did to one account. */
export interface AccountLockResult {
  user: string;
  /** False: no such account (nothing to lock or unlock). */
  found: boolean;
  /** Open connections ended (lock only). */
  killedConnections: number;
}

/** Accounts per lock or unlock call: a student has a handful; this bounds one request's work. */
export const MAX_ACCOUNTS_PER_CALL = 100;

export interface StudentDatabase {
  name: string;
  /** The account with privileges on this database only ('' when it is missing). */
  user: string;
}

export interface StudentDatabasesOptions {
  /** The admin account, mysql://user:password@host:port/ ; unset: every call is DatabaseServerUnavailableError. */
  url: string | undefined;
  /** Host part of the student accounts, e.g. '%' or '10.8.0.%'. */
  userHost: string;
  /**
   * MAX_USER_CONNECTIONS of every student account (AGENT_MYSQL_MAX_USER_CONNECTIONS): one
   * student's runaway loop or pool cannot take all of the server's connections. Default 10.
   */
  maxUserConnections?: number;
  logger: Logger;
  /** Connect timeout (ms). */
  connectTimeoutMs?: number;
}

const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'ECONNRESET',
  'EPIPE',
  'ENOENT',
  'PROTOCOL_CONNECTION_LOST',
  'ER_CON_COUNT_ERROR',
  'ER_ACCESS_DENIED_ERROR',
  'ER_SERVER_SHUTDOWN',
]);

/** Each name checked, duplicates dropped, at most MAX_ACCOUNTS_PER_CALL. */
function checkAccountList(users: readonly string[]): string[] {
  if (users.length > MAX_ACCOUNTS_PER_CALL) throw new StudentNameError(`at most ${MAX_ACCOUNTS_PER_CALL} accounts per call`);
  return [...new Set(users.map(checkUserName))];
}

/** True when the error means "the server is not there (for us)", not "this statement failed". */
export function isServerUnreachable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && UNREACHABLE_CODES.has(code);
}

/**
 * The students' databases on the dev server's MySQL/MariaDB, through one admin account. Every
 * change runs in one queue (they are rare and must not interleave: the existence check, the
 * CREATEs and the GRANT belong together). DDL commits on its own, so "nothing half-made" is done
 * by hand: what this call created is dropped again when a later step fails.
 */
export class StudentDatabases {
  private pool: mysql.Pool | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  /** The MAX_USER_CONNECTIONS clause (an integer from the config, never request data). */
  private readonly connectionLimit: string;

  constructor(private readonly options: StudentDatabasesOptions) {
    const limit = options.maxUserConnections ?? 10;
    if (!Number.isSafeInteger(limit) || limit < 1) throw new Error(`maxUserConnections must be a positive integer, got ${String(limit)}`);
    this.connectionLimit = `WITH MAX_USER_CONNECTIONS ${limit}`;
  }

  private async connection(): Promise<mysql.Pool> {
    if (!this.options.url) throw new DatabaseServerUnavailableError('this agent has no MySQL server for students (AGENT_MYSQL_URL is not set)');
    // mysql2 is loaded on the first database call (≈ 15 MB once loaded): most agents never make one.
    const { createPool } = (await import('mysql2/promise')).default;
    this.pool ??= createPool({
      uri: this.options.url,
      connectionLimit: 2,
      connectTimeout: this.options.connectTimeoutMs ?? 5_000,
      multipleStatements: false,
      // Idle connections are dropped so a restarted server is met with a fresh one.
      maxIdle: 0,
      idleTimeout: 10_000,
    });
    return this.pool;
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const result = this.queue.then(work);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async run<T>(work: (db: mysql.Pool) => Promise<T>): Promise<T> {
    const db = await this.connection();
    try {
      return await work(db);
    } catch (error) {
      if (isServerUnreachable(error)) {
        const code = (error as { code: string }).code;
        throw new DatabaseServerUnavailableError(`the MySQL server does not answer (${code})`, { cause: error });
      }
      throw error;
    }
  }

  private async schemaExists(db: mysql.Pool, name: string): Promise<boolean> {
    const [rows] = await db.query<mysql.RowDataPacket[]>('SELECT 1 FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [name]);
    return rows.length > 0;
  }

  private async userExists(db: mysql.Pool, user: string): Promise<boolean> {
    const [rows] = await db.query<mysql.RowDataPacket[]>('SELECT 1 FROM mysql.user WHERE User = ? AND Host = ?', [user, this.options.userHost]);
    return rows.length > 0;
  }

  /** Creates the database and its account (ALL on that database only, no GRANT OPTION); returns the password once. */
  create(nameInput: string, userInput: string): Promise<{ database: StudentDatabase; password: string }> {
    const { name, user } = checkDatabaseAndUser(nameInput, userInput);
    return this.serial(() =>
      this.run(async (db) => {
        const [schemaThere, userThere] = await Promise.all([this.schemaExists(db, name), this.userExists(db, user)]);
        if (schemaThere) throw new StudentDatabaseExistsError(`database ${name} already exists`);
        if (userThere) throw new StudentDatabaseExistsError(`account ${user}@${this.options.userHost} already exists`);
        const password = randomPassword();
        const made = { schema: false, user: false };
        try {
          await db.query(`CREATE DATABASE ${quotedIdentifier(name)} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
          made.schema = true;
          await db.query(`CREATE USER ?@? IDENTIFIED BY ? ${this.connectionLimit}`, [user, this.options.userHost, password]);
          made.user = true;
          await db.query(`GRANT ALL PRIVILEGES ON ${grantDatabasePattern(name)}.* TO ?@?`, [user, this.options.userHost]);
        } catch (error) {
          await this.undo(db, name, user, made);
          throw error;
        }
        this.options.logger.info({ database: name, user, userHost: this.options.userHost }, 'student database created');
        return { database: { name, user }, password };
      }),
    );
  }

  /** Best effort: removes what a failed create made (a second failure is logged, the first is what the caller sees). */
  private async undo(db: mysql.Pool, name: string, user: string, made: { schema: boolean; user: boolean }): Promise<void> {
    try {
      if (made.user) await db.query('DROP USER IF EXISTS ?@?', [user, this.options.userHost]);
      if (made.schema) await db.query(`DROP DATABASE IF EXISTS ${quotedIdentifier(name)}`);
    } catch (error) {
      this.options.logger.error({ err: error, database: name, user }, 'undoing a failed database create failed: remove it by hand');
    }
  }

  /** Drops the account (ending its sessions) and the database; what is not there counts as dropped. */
  drop(nameInput: string, userInput: string): Promise<{ databaseDropped: boolean; userDropped: boolean }> {
    const { name, user } = checkDatabaseAndUser(nameInput, userInput);
    return this.serial(() =>
      this.run(async (db) => {
        const userDropped = await this.userExists(db, user);
        if (userDropped) {
          // A dropped account's open sessions would keep working until they disconnect.
          const [sessions] = await db.query<mysql.RowDataPacket[]>('SELECT ID FROM information_schema.PROCESSLIST WHERE USER = ?', [user]);
          for (const session of sessions) await db.query('KILL CONNECTION ?', [Number(session.ID)]).catch(() => undefined);
          await db.query('DROP USER IF EXISTS ?@?', [user, this.options.userHost]);
        }
        const databaseDropped = await this.schemaExists(db, name);
        if (databaseDropped) await db.query(`DROP DATABASE IF EXISTS ${quotedIdentifier(name)}`);
        this.options.logger.info({ database: name, user, databaseDropped, userDropped }, 'student database dropped');
        return { databaseDropped, userDropped };
      }),
    );
  }

  /**
   * Locks the accounts (ALTER USER ... ACCOUNT LOCK refuses every new login with "this account
   * is locked") and only then ends their open connections (MariaDB's KILL CONNECTION USER), so
   * none can be opened in between. The password and the database stay: unlock gives back the
   * same access. A missing account is reported, not an error.
   */
  lock(users: readonly string[]): Promise<AccountLockResult[]> {
    return this.eachAccount(users, async (db, user) => {
      await db.query('ALTER USER ?@? ACCOUNT LOCK', [user, this.options.userHost]);
      const [sessions] = await db.query<mysql.RowDataPacket[]>("SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE USER = ? AND COMMAND <> 'Killed'", [user]);
      const open = Number(sessions[0]?.n ?? 0);
      if (open > 0) await db.query('KILL CONNECTION USER ?', [user]);
      return open;
    });
  }

  /**
   * Lifts the lock of the accounts (ALTER USER ... ACCOUNT UNLOCK), with the connection limit
   * (an account older than the limit gets it here too); a missing account is reported.
   */
  unlock(users: readonly string[]): Promise<AccountLockResult[]> {
    return this.eachAccount(users, async (db, user) => {
      await db.query(`ALTER USER ?@? ${this.connectionLimit} ACCOUNT UNLOCK`, [user, this.options.userHost]);
      return 0;
    });
  }

  /**
   * Gives every existing student account (student-form name on the students' host) the
   * configured connection limit when it has another one: accounts made before the setting, or
   * under another value. Run once at agent start; answers how many were changed.
   */
  applyConnectionLimit(): Promise<number> {
    const limit = this.options.maxUserConnections ?? 10;
    return this.serial(() =>
      this.run(async (db) => {
        const [rows] = await db.query<mysql.RowDataPacket[]>('SELECT User AS user FROM mysql.user WHERE Host = ? AND max_user_connections <> ?', [
          this.options.userHost,
          limit,
        ]);
        const users = rows.map((row) => String(row.user)).filter((user) => STUDENT_NAME.test(user));
        for (const user of users) await db.query(`ALTER USER ?@? ${this.connectionLimit}`, [user, this.options.userHost]);
        if (users.length > 0) this.options.logger.info({ accounts: users.length, maxUserConnections: limit }, 'student accounts given the connection limit');
        return users.length;
      }),
    );
  }

  /** Runs `change` (answering connections killed) on each existing account, in the one queue; all names are checked first. */
  private eachAccount(usersInput: readonly string[], change: (db: mysql.Pool, user: string) => Promise<number>): Promise<AccountLockResult[]> {
    const users = checkAccountList(usersInput);
    return this.serial(() =>
      this.run(async (db) => {
        const results: AccountLockResult[] = [];
        for (const user of users) {
          const found = await this.userExists(db, user);
          results.push({ user, found, killedConnections: found ? await change(db, user) : 0 });
        }
        return results;
      }),
    );
  }

  /** The student databases (names the agent would accept, system schemas left out), optionally by prefix. */
  list(prefix = ''): Promise<StudentDatabase[]> {
    return this.run(async (db) => {
      const [schemas] = await db.query<mysql.RowDataPacket[]>(
        'SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE ? ORDER BY SCHEMA_NAME',
        [likePrefix(prefix)],
      );
      const [users] = await db.query<mysql.RowDataPacket[]>('SELECT User AS user FROM mysql.user WHERE Host = ?', [this.options.userHost]);
      const accounts = new Set(users.map((row) => String(row.user)));
      return schemas
        .map((row) => String(row.name))
        .filter((name) => STUDENT_NAME.test(name) && !isSystemSchema(name))
        .map((name) => ({ name, user: accounts.has(name) ? name : '' }));
    });
  }

  async close(): Promise<void> {
    await this.pool?.end().catch(() => undefined);
    this.pool = undefined;
  }
}
