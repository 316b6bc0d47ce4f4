import { execFile, spawn } from 'node:child_process';
import { accessSync, chownSync, constants, existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** A throwaway PostgreSQL cluster; `url` is its admin URL (user postgres, trust auth). */
export interface PostgresServer {
  url: string;
  /** The server's own log (for a test's failure message). */
  logFile: string;
  /** Stops the server and deletes its files. Safe to call twice. */
  stop(): Promise<void>;
  /** Stops the server as `systemctl stop postgresql` does (fast shutdown: open connections are cut) and keeps its files. */
  stopServer(): Promise<void>;
  /** Starts a server stopped by stopServer() again, on the same port with the same data. */
  startServer(): Promise<void>;
}

interface PostgresPrograms {
  initdb: string;
  pgCtl: string;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** initdb and pg_ctl: from PG_BIN_DIR, else PATH, else Debian's /usr/lib/postgresql/<newest>/bin. */
function findPostgresPrograms(): PostgresPrograms {
  const pathDirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  const debianRoot = '/usr/lib/postgresql';
  const debianDirs = existsSync(debianRoot)
    ? readdirSync(debianRoot)
        .filter((entry) => /^\d+$/.test(entry))
        .sort((a, b) => Number(b) - Number(a))
        .map((major) => path.join(debianRoot, major, 'bin'))
    : [];
  const candidates = process.env.PG_BIN_DIR ? [process.env.PG_BIN_DIR] : [...pathDirs, ...debianDirs];
  for (const dir of candidates) {
    const initdb = path.join(dir, 'initdb');
    const pgCtl = path.join(dir, 'pg_ctl');
    if (isExecutable(initdb) && isExecutable(pgCtl)) return { initdb, pgCtl };
  }
  throw new Error(
    'PostgreSQL server programs (initdb, pg_ctl) not found in PG_BIN_DIR, PATH or /usr/lib/postgresql/*/bin. ' +
      'Install them (Debian: apt-get install postgresql) or set TEST_DATABASE_URL to a running server.',
  );
}

/** initdb refuses to run as root: as root, the cluster belongs to the postgres system user. */
function systemUser(name: string): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith(`${name}:`));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (uid === undefined || gid === undefined) {
    throw new Error(`running as root, but there is no "${name}" system user to own the test cluster (apt-get install postgresql makes it)`);
  }
  return { uid: Number(uid), gid: Number(gid) };
}

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function describeExecError(error: unknown): string {
  if (error && typeof error === 'object' && 'stderr' in error && typeof error.stderr === 'string' && error.stderr.trim()) {
    return error.stderr.trim();
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * Starts a PostgreSQL cluster for tests in a new temp dir, listening on 127.0.0.1 at a free
 * port (unix socket inside the temp dir, nothing else touched), tuned for speed rather than
 * durability (fsync off). A detached watchdog stops it and removes its files if this process
 * dies without calling stop(), so a crashed test run leaves no server behind.
 */
export async function startPostgres(): Promise<PostgresServer> {
  const programs = findPostgresPrograms();
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? systemUser('postgres') : undefined;
  const run = (program: string, args: string[]) =>
    asRoot
      ? execFileAsync('runuser', ['-u', 'postgres', '--', program, ...args])
      : execFileAsync(program, args);

  const baseDir = await mkdtemp(path.join(tmpdir(), 'devplein-pg-'));
  const dataDir = path.join(baseDir, 'data');
  const logFile = path.join(baseDir, 'postgres.log');
  if (owner) chownSync(baseDir, owner.uid, owner.gid);

  const removeFiles = () => rm(baseDir, { recursive: true, force: true });
  try {
    await run(programs.initdb, ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  } catch (error) {
    await removeFiles();
    throw new Error(`initdb failed: ${describeExecError(error)}`, { cause: error });
  }

  const startOn = (port: number) => {
    const serverOptions = [
      `-p ${port}`,
      `-k '${baseDir}'`,
      '-c listen_addresses=127.0.0.1',
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
      '-c max_connections=200',
    ].join(' ');
    return run(programs.pgCtl, ['-D', dataDir, '-l', logFile, '-o', serverOptions, '-w', '-t', '60', 'start']);
  };
  // Another process may take the free port between our check and the server's bind: retry.
  let port = 0;
  for (let attempt = 1; ; attempt += 1) {
    port = await freeLoopbackPort();
    try {
      await startOn(port);
      break;
    } catch (error) {
      const log = await readFile(logFile, 'utf8').catch(() => '');
      if (attempt < 3 && /could not bind|address already in use/i.test(log)) continue;
      await removeFiles();
      throw new Error(`pg_ctl start failed: ${describeExecError(error)}\n${log.slice(-2000)}`, { cause: error });
    }
  }

  const stopCommand = asRoot
    ? `runuser -u postgres -- "$2" -D "$3" -m immediate -w stop`
    : `"$2" -D "$3" -m immediate -w stop`;
  const watchdog = spawn(
    'sh',
    ['-c', `while kill -0 "$1" 2>/dev/null; do sleep 1; done; ${stopCommand} >/dev/null 2>&1; rm -rf "$4"`, 'postgres-watchdog',
      String(process.pid), programs.pgCtl, dataDir, baseDir],
    { detached: true, stdio: 'ignore' },
  );
  watchdog.unref();

  let stopping: Promise<void> | undefined;
  let serverStopped = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    logFile,
    async stopServer() {
      await run(programs.pgCtl, ['-D', dataDir, '-m', 'fast', '-w', 'stop']);
      serverStopped = true;
    },
    async startServer() {
      try {
        await startOn(port);
        serverStopped = false;
      } catch (error) {
        const log = await readFile(logFile, 'utf8').catch(() => '');
        throw new Error(`pg_ctl start failed: ${describeExecError(error)}\n${log.slice(-2000)}`, { cause: error });
      }
    },
    stop: () => {
      stopping ??= (async () => {
        if (watchdog.pid !== undefined) {
          try {
            process.kill(-watchdog.pid, 'SIGTERM');
          } catch {
            // already gone
          }
        }
        try {
          if (!serverStopped) await run(programs.pgCtl, ['-D', dataDir, '-m', 'fast', '-w', 'stop']);
        } finally {
          await removeFiles();
        }
      })();
      return stopping;
    },
  };
}
