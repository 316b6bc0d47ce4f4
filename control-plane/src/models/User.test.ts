import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKnex, migrate } from '../db/knex.ts';
import { User } from './User.ts';

/*
 * The write-time rules live in the User model's hooks: commands patch through the model and never
 * set updated_at or lowercase the e-mail themselves. Runs on embedded PGlite; the knex is passed
 * per query (nothing is bound globally).
 */
describe('User model hooks', { timeout: 60_000 }, () => {
  let dataDir: string;
  let knex: Knex;
  const longAgo = new Date('2020-01-01T00:00:00Z');

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'devplein-user-model-'));
    knex = createKnex({ dataDir });
    await migrate(knex);
  });
  afterAll(async () => {
    await knex?.destroy();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('sets updated_at on a patch through a query (no instance needed)', async () => {
    const [row] = await knex('users')
      .insert({ name: 'Hook Test', name_slug: 'hook-test', email: 'hook@devplein.test', admin: false, developer: false, updated_at: longAgo })
      .returning<{ id: number }[]>('id');
    const id = row!.id;
    await User.query(knex).findById(id).patch({ developer: true });
    const after = await knex('users').where({ id }).first<{ developer: boolean; updated_at: Date }>('developer', 'updated_at');
    expect(after?.developer).toBe(true);
    expect(after!.updated_at.getTime()).toBeGreaterThan(longAgo.getTime());
  });

  it('lowercases the e-mail address on insert and on patch', async () => {
    const created = await User.query(knex).insert({ name: 'Zoë Hoofd', email: ' Zoe.Hoofd@Devplein.test ', admin: false, developer: false });
    expect(created.email).toBe('zoe.hoofd@devplein.test');
    expect(created.name_slug).toBe('zoe-hoofd');
    await User.query(knex).findById(created.id).patch({ email: 'ZOE@DEVPLEIN.TEST' });
    expect((await knex('users').where({ id: created.id }).first<{ email: string }>('email'))?.email).toBe('zoe@devplein.test');
  });
});
