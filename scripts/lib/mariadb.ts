/**
 * A private MariaDB server in a folder of our own (for `npm start` and the tests): Debian's
 * mariadbd and mariadb-install-db, never the machine's own server, never its config files.
 */
import { execFile } from 'node:child_process';
import { accessSync, chownSync, constants, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';

const execFileAsync = promisify(execFile);

export interface MariaDbPrograms {
  server: string;
  installer: string;
}

function executableIn(dirs: string[], name: string): string | undefined {
  for (const dir of dirs) {
    const file = path.join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // next
    }
  }
  return undefined;
}

/** mariadbd and mariadb-install-db from PATH or /usr/sbin, or undefined when not installed. */
export function findMariaDbPrograms(): MariaDbPrograms | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean), '/usr/sbin', '/usr/bin'];
  const server = executableIn(dirs, 'mariadbd');
  const installer = executableIn(dirs, 'mariadb-install-db');
  return server && installer ? { server, installer } : undefined;
}

const isRoot = (): boolean => process.getuid?.() === 0;

/** As root the server runs as the mysql system user (mariadbd refuses root); otherwise as us. */
function mysqlSystemUser(): { uid: number; gid: number } | undefined {
  if (!isRoot()) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('mysql:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (uid === undefined || gid === undefined) throw new Error('no "mysql" system user (apt-get install mariadb-server makes it)');
  return { uid: Number(uid), gid: Number(gid) };
}

/** Whether the user may enter `dir`: every folder above it lets them through (the x bit). */
function reachableBy(user: { uid: number; gid: number }, dir: string): boolean {
  const parents: string[] = [];
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    parents.push(current);
    if (path.dirname(current) === current) break;
  }
  return parents.slice(1).every((parent) => {
    const { mode, uid, gid } = statSync(parent);
    if (uid === user.uid) return (mode & 0o100) !== 0;
    if (gid === user.gid) return (mode & 0o010) !== 0;
    return (mode & 0o001) !== 0;
  });
}

/**
 * Who runs the server as root: the mysql system user (mariadbd refuses root unless told), but
 * root itself when mysql cannot reach the folder — a checkout under /root (mode 700), where
 * `npm start` on a fresh server usually lives. Changing the modes of someone's home is not ours
 * to do, and this server only listens on loopback for development.
 */
export function mariaDbServerUser(dir: string): 'mysql' | 'root' | undefined {
  const mysqlUser = mysqlSystemUser();
  if (!mysqlUser) return undefined;
  return reachableBy(mysqlUser, dir) ? 'mysql' : 'root';
}

/** Makes `{dir}/data` with the system tables when it is not there yet, and `{dir}/tmp` (`dir` must exist). */
export async function initMariaDbDir(programs: MariaDbPrograms, dir: string): Promise<void> {
  const dataDir = path.join(dir, 'data');
  const user = mariaDbServerUser(dir);
  const owner = user === 'mysql' ? mysqlSystemUser() : undefined;
  // Also for a folder made before the server had its own temporary folder (npm start's).
  const tmpDir = mariaDbTmpDir(dir);
  mkdirSync(tmpDir, { recursive: true });
  if (owner) chownSync(tmpDir, owner.uid, owner.gid);
  if (existsSync(path.join(dataDir, 'mysql'))) return;
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const args = [
    '--no-defaults',
    `--datadir=${dataDir}`,
    `--tmpdir=${tmpDir}`,
    '--skip-test-db',
    '--auth-root-authentication-method=socket',
    ...(user ? [`--user=${user}`] : []),
  ];
  try {
    await execFileAsync(programs.installer, args, { timeout: 120_000 });
  } catch (error) {
    throw new Error(`mariadb-install-db failed: ${(error as { stderr?: string }).stderr ?? String(error)}`, { cause: error });
  }
}

export interface MariaDbServerOptions {
  dir: string;
  port: number;
  /** Comma-separated addresses (MariaDB ≥ 10.11); default 127.0.0.1. */
  bindAddress?: string;
}

export const mariaDbSocket = (dir: string): string => path.join(dir, 'mysqld.sock');

/**
 * The server's own temporary folder: in the shared /tmp, servers started at once (parallel tests)
 * lost each other's temporary tables during mariadb-install-db ("Could not remove temporary
 * table '/tmp/#sql-temptable-…', error: 2", then "Unknown table 'mysql.tmp_proxies_priv'").
 */
const mariaDbTmpDir = (dir: string): string => path.join(dir, 'tmp');

/** The mariadbd command line for a folder made by initMariaDbDir. */
export function mariaDbServerArgs(options: MariaDbServerOptions): string[] {
  return [
    '--no-defaults',
    ...(isRoot() ? [`--user=${mariaDbServerUser(options.dir) ?? 'mysql'}`] : []),
    `--datadir=${path.join(options.dir, 'data')}`,
    `--tmpdir=${mariaDbTmpDir(options.dir)}`,
    `--socket=${mariaDbSocket(options.dir)}`,
    `--port=${options.port}`,
    `--bind-address=${options.bindAddress ?? '127.0.0.1'}`,
    `--pid-file=${path.join(options.dir, 'mysqld.pid')}`,
    `--log-error=${path.join(options.dir, 'error.log')}`,
    '--skip-name-resolve',
    '--innodb-buffer-pool-size=32M',
    '--performance-schema=OFF',
  ];
}

/** A connection over the socket as the local superuser (root, or us: socket authentication). */
export function socketConnection(dir: string): Promise<mysql.Connection> {
  return mysql.createConnection({ socketPath: mariaDbSocket(dir), user: isRoot() ? 'root' : userInfo().username });
}

/** The tail of the server's error log, for messages when it does not come up. */
export function mariaDbLogTail(dir: string): string {
  try {
    return readFileSync(path.join(dir, 'error.log'), 'utf8').slice(-4000);
  } catch {
    return '';
  }
}

/**
 * The agent's admin account (all privileges, with GRANT OPTION: it grants students theirs),
 * created or given this password — deploy/ tells a sysadmin to make the same by hand.
 */
export async function ensureAgentAccount(dir: string, account: { user: string; host: string; password: string }): Promise<void> {
  const connection = await socketConnection(dir);
  try {
    await connection.query('CREATE USER IF NOT EXISTS ?@? IDENTIFIED BY ?', [account.user, account.host, account.password]);
    await connection.query('ALTER USER ?@? IDENTIFIED BY ?', [account.user, account.host, account.password]);
    await connection.query('GRANT ALL PRIVILEGES ON *.* TO ?@? WITH GRANT OPTION', [account.user, account.host]);
  } finally {
    await connection.end();
  }
}
