import path from 'node:path';
import { createKnex, migrate } from './knex.ts';
import { seedDemoData } from './seed.ts';

/*
 * `npm run seed` — migrates, then fills the database with the demo data.
 * `--if-empty` seeds only when the users table is empty (safe to run on every start).
 * DATABASE_URL selects PostgreSQL; without it the embedded PGlite in DATA_DIR (default ./data).
 */
const databaseUrl = process.env.DATABASE_URL || undefined;
const dataDir = path.resolve(process.cwd(), process.env.DATA_DIR || 'data');
const target = databaseUrl ? 'PostgreSQL' : `PGlite in ${dataDir}`;
const knex = createKnex({ databaseUrl, dataDir });

try {
  await migrate(knex);
  const [{ count }] = (await knex('users').count({ count: '*' })) as [{ count: number }];
  if (count > 0 && process.argv.includes('--if-empty')) {
    console.log(`Seed skipped: ${target} already has ${count} user(s)`);
  } else {
    const summary = await seedDemoData(knex);
    console.log(
      `Seeded demo data into ${target}: ${summary.users} users, ${summary.groups} groups, ${summary.teams} teams, ` +
        `${summary.levelCategories} level categories, ${summary.levels} levels, ${summary.projects} projects`,
    );
  }
} catch (error) {
  console.error(`Seeding failed on ${target}:`, error);
  process.exitCode = 1;
} finally {
  await knex.destroy();
}
