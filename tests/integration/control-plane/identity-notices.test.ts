import type { Knex } from 'knex';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadCurrentUser } from '../../../control-plane/src/queries/current-user.ts';
import { IdentityCache } from '../../../control-plane/src/auth/identity-cache.ts';
import { NOTICE_CONNECTION_NAME, startIdentityNotices, type IdentityNotices } from '../../../control-plane/src/auth/identity-notices.ts';
import { createTestDatabase, type TestDatabase } from '../../support/services/database.ts';
import { createTestPglite } from '../../support/services/pglite.ts';

/*
 * The notices that keep the identity cache in step with the database (migration 0011's triggers):
 * on embedded PGlite they are applied when the writing transaction commits; on PostgreSQL a
 * write from another connection is applied once settle() returns. Rolled back writes announce
 * nothing.
 */

interface Setup {
  knex: Knex;
  databaseUrl?: string;
  close: () => Promise<void>;
}

/** Ends the listener's connection from the server side, as a restart or network cut would. */
async function cutListener(knex: Knex): Promise<void> {
  const result = await knex.raw<{ rows: unknown[] }>(
    `select pg_terminate_backend(pid) from pg_stat_activity
      where datname = current_database() and application_name = ?`,
    [NOTICE_CONNECTION_NAME],
  );
  expect(result.rows).toHaveLength(1);
}

function noticeSuite(name: string, open: () => Promise<Setup>) {
  describe(`identity notices on ${name}`, () => {
    let setup: Setup;
    let cache: IdentityCache;
    let notices: IdentityNotices;
    let userId: number;
    let loads = 0;

    beforeAll(async () => {
      setup = await open();
      const [row] = await setup.knex('users').insert({ name: 'Ada', name_slug: 'ada-notices', email: 'ada-notices@devplein.test' }).returning<{ id: number }[]>('id');
      userId = (row as { id: number }).id;
      cache = new IdentityCache();
      notices = await startIdentityNotices({ knex: setup.knex, databaseUrl: setup.databaseUrl, cache, logger: pino({ level: 'silent' }) });
    });

    afterAll(async () => {
      await notices?.stop();
      await setup?.close();
    });

    const read = () =>
      cache.user(userId, () => {
        loads += 1;
        return loadCurrentUser(setup.knex, userId);
      });

    it('listens, so reads are served from memory', async () => {
      expect(cache.listening).toBe(true);
      await read();
      const before = loads;
      await read();
      expect(loads).toBe(before);
    });

    it('a committed write is seen by the next read (after settle)', async () => {
      await read();
      await setup.knex('users').where({ id: userId }).update({ admin: true });
      await notices.settle();
      expect((await read())?.admin).toBe(true);
    });

    it('a team membership is announced too', async () => {
      await read();
      const [team] = await setup.knex('teams').insert({ name: 'Noticeteam' }).returning<{ id: number }[]>('id');
      await setup.knex('team_user').insert({ team_id: (team as { id: number }).id, user_id: userId });
      await notices.settle();
      expect((await read())?.teams.map((entry) => entry.name)).toContain('Noticeteam');
    });

    it('a rolled back write announces nothing', async () => {
      await read();
      const before = loads;
      await setup.knex
        .transaction(async (trx) => {
          await trx('users').where({ id: userId }).update({ name: 'Teruggedraaid' });
          throw new Error('rollback');
        })
        .catch(() => undefined);
      await notices.settle();
      expect((await read())?.name).toBe('Ada');
      expect(loads).toBe(before);
    });

    if (name.startsWith('PostgreSQL')) {
      it('a lost listener turns the cache off, and it comes back empty (notices may have been missed)', async () => {
        await setup.knex('users').where({ id: userId }).update({ name: 'Ada' });
        await notices.settle();
        expect((await read())?.name).toBe('Ada');
        await cutListener(setup.knex);
        await vi.waitFor(() => expect(cache.listening).toBe(false), { timeout: 10_000, interval: 5 });
        await setup.knex('users').where({ id: userId }).update({ name: 'Tijdens' });
        expect((await read())?.name).toBe('Tijdens');
        await vi.waitFor(() => expect(cache.listening).toBe(true), { timeout: 10_000, interval: 20 });
        expect((await read())?.name).toBe('Tijdens');
        await setup.knex('users').where({ id: userId }).update({ name: 'Daarna' });
        await notices.settle();
        expect((await read())?.name).toBe('Daarna');
      });
    }
  });
}

noticeSuite('PGlite (applied at commit, settle has nothing to wait for)', () => createTestPglite('notices'));

let database: TestDatabase | undefined;
noticeSuite('PostgreSQL (LISTEN on a connection of its own)', async () => {
  database = await createTestDatabase();
  return { knex: database.knex, databaseUrl: database.url, close: () => (database as TestDatabase).destroy() };
});
