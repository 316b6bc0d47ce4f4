import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Knex } from 'knex';
import pg from 'pg';
import { createKnex, migrate } from '../../../control-plane/src/db/knex.ts';
import { startPostgres } from './postgres.ts';

/** A database of its own for one test file (or test), on the shared test server. */
export interface TestDatabase {
  /** postgres:// URL of this database (give it to a control plane as DATABASE_URL). */
  url: string;
  /** knex on this database (pg driver). Models are NOT bound: call bindModels(knex) if you need them. */
  knex: Knex;
  /** Closes the knex pool and drops the database. */
  destroy(): Promise<void>;
}

export interface TestDatabaseOptions {
  /** false: an empty database (no migrations run), e.g. to test the migrations themselves. Default true. */
  migrated?: boolean;
  /** Admin URL of another server than the shared test server (e.g. a private one a test restarts). */
  serverUrl?: string;
}

const TEMPLATE_DATABASE = 'devplein_template';
// pg_advisory_lock key guarding template (re)builds across test workers: "devplein" in hex-ish.
const TEMPLATE_LOCK_KEY = 0x64657670;

const migrationsDir = fileURLToPath(new URL('../../../control-plane/src/db/migrations/', import.meta.url));
const migrationSourceFile = fileURLToPath(new URL('../../../control-plane/src/db/migration-source.ts', import.meta.url));

let ownServer: Promise<string> | undefined;
const templates = new Map<string, Promise<void>>();

/**
 * Admin URL of the test PostgreSQL server: TEST_DATABASE_URL (set by the vitest global setup,
 * or by you to reuse a server), else a cluster this process starts once; it stops when the
 * process exits (startPostgres's watchdog).
 */
export function testServerUrl(): Promise<string> {
  const configured = process.env.TEST_DATABASE_URL;
  if (configured) return Promise.resolve(configured);
  ownServer ??= startPostgres().then((server) => server.url);
  return ownServer;
}

/** URL of database `name` on the server at `serverUrl`. */
export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Changes whenever a migration file or the migration list changes: a stale template is rebuilt. */
function migrationsFingerprint(): string {
  const hash = createHash('sha256');
  const files = readdirSync(migrationsDir).filter((file) => file.endsWith('.ts')).sort();
  for (const file of [...files.map((name) => path.join(migrationsDir, name)), migrationSourceFile]) {
    hash.update(path.basename(file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

async function withAdminClient<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Makes sure `devplein_template` exists on the server with the current migrations applied.
 * Several vitest workers may get here at once: a session advisory lock lets one build it while
 * the others wait, then see it is current. The template refuses connections, so nobody can
 * hold it open and block `CREATE DATABASE ... TEMPLATE`.
 */
function ensureTemplate(serverUrl: string): Promise<void> {
  let ready = templates.get(serverUrl);
  if (!ready) {
    ready = withAdminClient(serverUrl, async (client) => {
      const fingerprint = migrationsFingerprint();
      await client.query('select pg_advisory_lock($1)', [TEMPLATE_LOCK_KEY]);
      try {
        const { rows } = await client.query<{ comment: string | null }>(
          "select shobj_description(oid, 'pg_database') as comment from pg_database where datname = $1",
          [TEMPLATE_DATABASE],
        );
        if (rows[0]?.comment === fingerprint) return;
        if (rows.length > 0) {
          await client.query(`alter database ${TEMPLATE_DATABASE} is_template false`);
          await client.query(`drop database ${TEMPLATE_DATABASE} with (force)`);
        }
        await client.query(`create database ${TEMPLATE_DATABASE}`);
        const knex = createKnex({ databaseUrl: databaseUrl(serverUrl, TEMPLATE_DATABASE), dataDir: tmpdir() });
        try {
          await migrate(knex);
        } finally {
          await knex.destroy();
        }
        // Marked current only after a complete build; a half-built template gets rebuilt.
        await client.query(`comment on database ${TEMPLATE_DATABASE} is '${fingerprint}'`);
        await client.query(`alter database ${TEMPLATE_DATABASE} with is_template true allow_connections false`);
      } finally {
        await client.query('select pg_advisory_unlock($1)', [TEMPLATE_LOCK_KEY]);
      }
    });
    // A failed build must not be cached: the next caller retries.
    ready.catch(() => templates.delete(serverUrl));
    templates.set(serverUrl, ready);
  }
  return ready;
}

/**
 * A fresh database on the test server: by default a clone of the migrated template (fast, a
 * few tens of ms), or empty with `{ migrated: false }`. Each call gets its own database named
 * test_<random>; destroy() drops it.
 */
export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const serverUrl = options.serverUrl ?? (await testServerUrl());
  const migrated = options.migrated ?? true;
  if (migrated) await ensureTemplate(serverUrl);
  const name = `test_${randomBytes(6).toString('hex')}`;
  await withAdminClient(serverUrl, (client) =>
    client.query(migrated ? `create database ${name} template ${TEMPLATE_DATABASE}` : `create database ${name}`),
  );
  const url = databaseUrl(serverUrl, name);
  const knex = createKnex({ databaseUrl: url, dataDir: tmpdir() });
  let destroying: Promise<void> | undefined;
  return {
    url,
    knex,
    destroy: () => {
      destroying ??= (async () => {
        await knex.destroy();
        await withAdminClient(serverUrl, (client) => client.query(`drop database if exists ${name} with (force)`));
      })();
      return destroying;
    },
  };
}
