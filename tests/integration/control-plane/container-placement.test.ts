/**
 * Which containers a dev server's event relay may speak for (issue 35): containersPlacedOn on
 * real PostgreSQL. A project is its dev server's when `projects.host` names it, or is null and
 * the server is the first link; every other name (another server's project, no project at all)
 * is left out, so the relay drops what that agent says about it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../support/services/database.ts';
import { seedDemoData } from '../../../control-plane/src/db/seed.ts';
import { containersPlacedOn } from '../../../control-plane/src/queries/container-product-states.ts';
import { AWAITING_APPROVAL, REJECTED } from '../../../control-plane/src/lib/container-states.ts';

let database: TestDatabase;
let names: { onFirst: string; onDev1: string; onDev2: string; awaiting: string; rejected: string };

beforeAll(async () => {
  database = await createTestDatabase();
  await seedDemoData(database.knex);
  const rows = await database.knex('projects').orderBy('id').limit(5).select<Array<{ id: number; name: string }>>('id', 'name');
  expect(rows).toHaveLength(5);
  const [a, b, c, d, e] = rows as [{ id: number; name: string }, { id: number; name: string }, { id: number; name: string }, { id: number; name: string }, { id: number; name: string }];
  await database.knex('projects').where({ id: a.id }).update({ host: null, validated: true });
  await database.knex('projects').where({ id: b.id }).update({ host: 'dev1', validated: true });
  await database.knex('projects').where({ id: c.id }).update({ host: 'dev2', validated: true });
  await database.knex('projects').where({ id: d.id }).update({ host: 'dev2', validated: null });
  await database.knex('projects').where({ id: e.id }).update({ host: null, validated: false });
  names = { onFirst: a.name, onDev1: b.name, onDev2: c.name, awaiting: d.name, rejected: e.name };
});

afterAll(async () => {
  await database?.destroy();
});

describe('containersPlacedOn', () => {
  it('the first link: its own rows and those without a host, with the product state of a project that is not approved', async () => {
    const all = [...Object.values(names), 'bestaat-niet'];
    const placed = await containersPlacedOn(database.knex, all, { name: 'dev1', isDefault: true });
    expect(Object.fromEntries(placed)).toEqual({ [names.onFirst]: null, [names.onDev1]: null, [names.rejected]: REJECTED });
  });

  it('another link: only its own rows; the first link’s and names no project has are left out', async () => {
    const all = [...Object.values(names), 'bestaat-niet'];
    const placed = await containersPlacedOn(database.knex, all, { name: 'dev2', isDefault: false });
    expect(Object.fromEntries(placed)).toEqual({ [names.onDev2]: null, [names.awaiting]: AWAITING_APPROVAL });
  });

  it('nothing asked, nothing answered', async () => {
    expect((await containersPlacedOn(database.knex, [], { name: 'dev1', isDefault: true })).size).toBe(0);
  });
});
