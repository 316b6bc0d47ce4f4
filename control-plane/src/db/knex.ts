import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import type { PGlite } from '@electric-sql/pglite';
import { Model } from 'objection';
import pg from 'pg';
import { migrationSource } from './migration-source.ts';

/** PostgreSQL type oids whose parsing we align between node-postgres and PGlite. */
const INT8_OID = 20;
const DATE_OID = 1082;
const BYTEA_OID = 17;

/** Where to find the data: a PostgreSQL server, or else an embedded PGlite directory. */
export interface KnexOptions {
  /** postgres:// URL; when set, the pg driver is used and `dataDir` is ignored. */
  databaseUrl?: string;
  /** Directory for embedded data; PGlite keeps its cluster in `<dataDir>/pglite`. */
  dataDir: string;
  /** knex's own warnings (e.g. every failed connection attempt, with its stack); default: the console. */
  log?: Knex.Logger;
}

/** createKnex's connection function for PGlite, which also says which instance it hands out. */
type EmbeddedConnection = (() => { pglite: PGlite }) & { embedded: PGlite };

/**
 * The PGlite instance behind `knex` (its LISTEN is an in-process callback), or undefined when it
 * talks to a PostgreSQL server: read off the connection function createKnex gave it.
 */
export function embeddedPglite(knex: Knex): PGlite | undefined {
  const connection: unknown = (knex.client as { config?: { connection?: unknown } }).config?.connection;
  return typeof connection === 'function' && 'embedded' in connection ? (connection as EmbeddedConnection).embedded : undefined;
}

/**
 * node-postgres returns int8 (count(*), bigint) as strings and dates as local-midnight Date
 * objects; PGlite returns numbers and UTC Dates. Both drivers are made to answer alike:
 * int8 → number, date → 'YYYY-MM-DD' string (no time zone drift), bytea → Buffer.
 * The pg setting is process-wide (pg-types is global), which is what we want; setting it again
 * replaces it with the same parser.
 */
function alignPgTypes(): void {
  pg.types.setTypeParser(INT8_OID, (value: string) => Number(value));
  pg.types.setTypeParser(DATE_OID, (value: string) => value);
}

function parseByteaHex(value: string): Buffer {
  // PGlite hands bytea over in its text form: '\x' followed by hex digits.
  return Buffer.from(value.startsWith('\\x') ? value.slice(2) : value, 'hex');
}

/**
 * Creates the knex instance for the control plane: the pg driver when `databaseUrl` is set,
 * otherwise embedded PGlite in `<dataDir>/pglite` (one connection only: never run a query
 * outside a transaction while that transaction is open, it would wait forever).
 */
export function createKnex(options: KnexOptions): Knex {
  if (options.databaseUrl) {
    alignPgTypes();
    return knexFactory({
      client: 'pg',
      connection: options.databaseUrl,
      pool: { min: 0, max: 10 },
      ...(options.log ? { log: options.log } : {}),
    });
  }
  const directory = path.join(path.resolve(options.dataDir), 'pglite');
  mkdirSync(directory, { recursive: true });
  // Loaded only here: a control plane on PostgreSQL (production) never pays for PGlite's modules.
  // Required, not imported, so createKnex stays synchronous for its many callers.
  const require = createRequire(import.meta.url);
  const { PGlite, types: pgliteTypes } = require('@electric-sql/pglite') as typeof import('@electric-sql/pglite');
  const ClientPgLite = require('knex-pglite') as typeof import('knex-pglite');
  const pglite = new PGlite(directory, {
    parsers: {
      [INT8_OID]: (value: string) => Number(value),
      [DATE_OID]: (value: string) => value,
      [BYTEA_OID]: parseByteaHex,
    },
  });
  // Guard against a renumbering in PGlite's type table: the oids above are PostgreSQL's.
  if (pgliteTypes.INT8 !== INT8_OID || pgliteTypes.DATE !== DATE_OID || pgliteTypes.BYTEA !== BYTEA_OID) {
    throw new Error('PGlite type oids differ from PostgreSQL; check createKnex');
  }
  const knex = knexFactory({
    client: ClientPgLite,
    dialect: 'postgres',
    // knex-pglite accepts a function returning our own instance (so the parsers above apply).
    // knex calls it more than once; it must always hand back the same instance.
    connection: Object.assign(() => ({ pglite }), { embedded: pglite }) satisfies EmbeddedConnection as unknown as Knex.StaticConnectionConfig,
    ...(options.log ? { log: options.log } : {}),
  });
  return knex;
}

/** Runs every pending migration of control-plane/src/db/migrations; returns their names. */
export async function migrate(knex: Knex): Promise<string[]> {
  const [, names] = (await knex.migrate.latest({ migrationSource })) as [number, string[]];
  return names;
}

/** Rolls back every applied migration (all batches); returns the names rolled back. */
export async function rollbackAll(knex: Knex): Promise<string[]> {
  const [, names] = (await knex.migrate.rollback({ migrationSource }, true)) as [number, string[]];
  return names;
}

/**
 * Binds the objection models to this knex instance. Objection keeps the binding on the base
 * Model class, so it is process-wide: the last call wins. Tests that juggle several
 * databases should pass a knex/transaction per query (`User.query(knex)`) instead.
 */
export function bindModels(knex: Knex): void {
  Model.knex(knex);
}
