import path from 'node:path';
import { createKnex, migrate, rollbackAll } from './knex.ts';

/*
 * `npm run migrate` — runs pending migrations; `npm run migrate -- --rollback` rolls all back.
 * DATABASE_URL selects PostgreSQL; without it the embedded PGlite in DATA_DIR (default ./data).
 */
const databaseUrl = process.env.DATABASE_URL || undefined;
const dataDir = path.resolve(process.cwd(), process.env.DATA_DIR || 'data');
const target = databaseUrl ? 'PostgreSQL' : `PGlite in ${dataDir}`;
const knex = createKnex({ databaseUrl, dataDir });

try {
  if (process.argv.includes('--rollback')) {
    const names = await rollbackAll(knex);
    console.log(names.length ? `Rolled back ${names.length} migration(s) on ${target}: ${names.join(', ')}` : `Nothing to roll back on ${target}`);
  } else {
    const names = await migrate(knex);
    console.log(names.length ? `Ran ${names.length} migration(s) on ${target}: ${names.join(', ')}` : `Database on ${target} is up to date`);
  }
} catch (error) {
  console.error(`Migration failed on ${target}:`, error);
  process.exitCode = 1;
} finally {
  await knex.destroy();
}
