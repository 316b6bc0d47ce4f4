import type { Knex } from 'knex';
import { createKnex, migrate } from '../../control-plane/src/db/knex.ts';
import { seedDemoData } from '../../control-plane/src/db/seed.ts';
import { startPostgres } from '../../tests/support/services/postgres.ts';

export interface BenchDatabase {
  /** postgres:// URL of the database (a control plane's DATABASE_URL). */
  url: string;
  /** knex on it; the caller destroys it when done with it. */
  knex: Knex;
  /** Stops the throwaway server. */
  stop: () => Promise<void>;
}

/** A throwaway PostgreSQL server with database `name`, migrated and filled with the demo data. */
export async function startBenchDatabase(name: string): Promise<BenchDatabase> {
  const postgres = await startPostgres();
  const url = postgres.url.replace(/\/postgres$/, `/${name}`);
  const admin = createKnex({ databaseUrl: postgres.url, dataDir: '.tmp' });
  await admin.raw(`create database ${name}`);
  await admin.destroy();
  const knex = createKnex({ databaseUrl: url, dataDir: '.tmp' });
  await migrate(knex);
  await seedDemoData(knex);
  return { url, knex, stop: () => postgres.stop() };
}
