import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { createKnex, migrate } from '../../../control-plane/src/db/knex.ts';

/** A migrated embedded PGlite database in a directory of its own; `close` removes it. */
export async function createTestPglite(name: string): Promise<{ knex: Knex; close: () => Promise<void> }> {
  const dataDir = await mkdtemp(path.join(tmpdir(), `devplein-pglite-${name}-`));
  const knex = createKnex({ dataDir });
  await migrate(knex);
  return {
    knex,
    close: async () => {
      await knex.destroy();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
