import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKnex, migrate, rollbackAll } from '../../../control-plane/src/db/knex.ts';
import { migrationNames } from '../../../control-plane/src/db/migration-source.ts';
import { demoAccounts, seedDemoData } from '../../../control-plane/src/db/seed.ts';
import { createTestDatabase, type TestDatabase } from '../../support/services/database.ts';

/** The tables of the shared brief (and the phpMyAdmin sign-on tickets, the pending host access intents, the backup runs, the overview's host samples and idle auto-stops), plus knex's own bookkeeping. */
const applicationTables = [
  'agent_join_tokens', 'agent_links', 'audit_log', 'backup_runs', 'course_files', 'course_texts', 'courses', 'databases', 'db_admin_signons', 'deploy_hook_deliveries', 'docker_images', 'groups', 'host_samples', 'idle_auto_stops', 'introducees',
  'level_categories', 'level_contents', 'levels', 'licenses', 'pending_host_access', 'project_deploys', 'project_git_tokens', 'project_user', 'projects', 'sessions', 'ssh_keys',
  'team_user', 'teams', 'thumbnails', 'users', 'vpn_configs',
];
const knexTables = ['knex_migrations', 'knex_migrations_lock'];

async function publicTables(knex: Knex): Promise<string[]> {
  const result = (await knex.raw(
    "select table_name from information_schema.tables where table_schema = 'public' order by table_name",
  )) as { rows: Array<{ table_name: string }> };
  return result.rows.map((row) => row.table_name);
}

interface Target {
  knex: Knex;
  close(): Promise<void>;
}

/** The same checks on both drivers: a migrated-from-empty database, seeded, then poked at. */
function migrationSuite(driver: string, open: () => Promise<Target>): void {
  describe(`migrations and seed on ${driver}`, { timeout: 60_000 }, () => {
    let target: Target;
    let knex: Knex;

    beforeAll(async () => {
      target = await open();
      knex = target.knex;
      // PGlite initialises its cluster on the first query (seconds): do that outside the tests.
      await knex.raw('select 1');
    });
    afterAll(async () => {
      await target?.close();
    });

    it('migrates up from empty, down to nothing, and up again', async () => {
      expect(await publicTables(knex)).toEqual([]);

      expect(await migrate(knex)).toEqual(migrationNames);
      expect(await publicTables(knex)).toEqual([...applicationTables, ...knexTables].sort());
      expect(await migrate(knex)).toEqual([]);

      expect(await rollbackAll(knex)).toEqual([...migrationNames].reverse());
      expect(await publicTables(knex)).toEqual(knexTables);

      expect(await migrate(knex)).toEqual(migrationNames);
      expect(await publicTables(knex)).toEqual([...applicationTables, ...knexTables].sort());
    });

    it('seeds the demo accounts with their flags, groups and first team', async () => {
      const summary = await seedDemoData(knex);
      expect(summary.users).toBeGreaterThanOrEqual(40);

      const rows = (await knex('users')
        .leftJoin('groups', 'groups.id', 'users.group_id')
        .whereIn('users.email', demoAccounts.map((account) => account.email))
        .orderBy('users.id')
        .select(
          'users.id', 'users.name', 'users.email', 'users.admin', 'users.developer', 'users.email_verified_at', 'groups.cohort',
          knex.raw('(select min(team_id) from team_user where team_user.user_id = users.id) as first_team_id'),
        )) as Array<{
        id: number; name: string; email: string; admin: boolean; developer: boolean;
        email_verified_at: Date | null; cohort: string | null; first_team_id: number | null;
      }>;
      const byEmail = new Map(rows.map((row) => [row.email, row]));

      expect(byEmail.get('admin@devplein.test')).toMatchObject({ name: 'Anna Admin', admin: true, developer: true, cohort: null, first_team_id: 1 });
      expect(byEmail.get('docent@devplein.test')).toMatchObject({ admin: true, developer: false });
      expect(byEmail.get('ontwikkelaar@devplein.test')).toMatchObject({ admin: false, developer: true, cohort: 'SD22' });
      expect(byEmail.get('student@devplein.test')).toMatchObject({ admin: false, developer: false, cohort: 'SD23' });
      expect(byEmail.get('zonderklas@devplein.test')).toMatchObject({ admin: false, cohort: null });
      expect(byEmail.get('nieuw@devplein.test')).toMatchObject({ email_verified_at: null });
      for (const row of rows.filter((user) => user.email !== 'nieuw@devplein.test')) {
        expect(row.email_verified_at, row.email).toBeInstanceOf(Date);
      }
      // The demo accounts are users 1-6 in a fresh database.
      expect(rows.map((row) => row.id)).toEqual([1, 2, 3, 4, 5, 6]);

      const team = (await knex('teams').where({ id: 1 }).first()) as { name: string };
      expect(team.name).toBe('Beheer');
      const cohorts = (await knex('groups').orderBy('cohort').pluck('cohort')) as string[];
      expect(cohorts).toEqual(['SD20', 'SD21', 'SD22', 'SD23']);
      expect(await knex('level_categories').where({ number: 16 }).first()).toBeDefined();
      expect(await knex('projects').where({ visible: true }).first()).toBeDefined();
      expect(await knex('projects').where({ visible: false }).first()).toBeDefined();
      expect(await knex('projects').whereNull('validated').first()).toBeDefined();
      expect(await knex('users').whereNull('group_id').where({ admin: false }).first()).toBeDefined();
    });

    it('returns int8 as numbers, dates as YYYY-MM-DD strings and bytea as Buffers', async () => {
      const [{ count }] = (await knex('users').count({ count: '*' })) as [{ count: unknown }];
      expect(typeof count).toBe('number');
      const raw = (await knex.raw('select 9007199254740991::int8 as big, sum(1)::int8 as total')) as { rows: Array<{ big: unknown; total: unknown }> };
      expect(raw.rows[0]).toEqual({ big: Number.MAX_SAFE_INTEGER, total: 1 });

      const project = (await knex('projects').whereNotNull('end_date').orderBy('id').first()) as { id: number; end_date: unknown };
      expect(project.end_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);

      await knex('thumbnails').insert({ project_id: project.id, png: Buffer.from([0x89, 0x50, 0x4e, 0x47]) });
      const thumbnail = (await knex('thumbnails').where({ project_id: project.id }).first()) as { png: unknown };
      expect(Buffer.isBuffer(thumbnail.png)).toBe(true);
      expect([...(thumbnail.png as Buffer)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    });

    it('keeps sequences past explicitly inserted ids', async () => {
      const [team] = (await knex('teams').insert({ name: 'Nieuw team' }).returning('id')) as Array<{ id: number }>;
      expect(team!.id).toBeGreaterThan(3);
      const [group] = (await knex('groups').insert({ cohort: 'SD24' }).returning('id')) as Array<{ id: number }>;
      expect(group!.id).toBe(5);
    });

    it('enforces the constraints the code relies on', async () => {
      const user = (await knex('users').where({ email: 'student@devplein.test' }).first()) as { id: number };
      await expect(knex('users').insert({ name: 'Hoofdletter', name_slug: 'hoofdletter', email: 'Hoofd@devplein.test' })).rejects.toThrow(/users_email_lowercase/);
      await expect(knex('users').insert({ name: 'Dubbel', name_slug: 'dubbel', email: 'student@devplein.test' })).rejects.toThrow(/unique/i);
      await expect(knex('levels').insert({ user_id: user.id, level_category_id: 1, number: 1, status: 'done' })).rejects.toThrow(/levels_status_known/);
      await expect(knex('levels').insert({ user_id: user.id, level_category_id: 1, number: 1, status: 'open' })).rejects.toThrow(/unique/i);

      // Deleting a user ends their sessions and frees their rows; their audit trail stays.
      const [extra] = (await knex('users').insert({ name: 'Weg Straks', name_slug: 'weg-straks', email: 'weg@devplein.test' }).returning('id')) as Array<{ id: number }>;
      await knex('sessions').insert({ id: 'sess-1', user_id: extra!.id, data: JSON.stringify({ csrf: 'x' }), expires_at: new Date(Date.now() + 60_000) });
      await knex('audit_log').insert({ actor_id: extra!.id, action: 'user.test', subject_type: 'user', subject_id: String(extra!.id), after: JSON.stringify({ ok: true }) });
      await knex('users').where({ id: extra!.id }).delete();
      expect(await knex('sessions').where({ id: 'sess-1' }).first()).toBeUndefined();
      const entry = (await knex('audit_log').where({ action: 'user.test' }).first()) as { actor_id: number | null; after: unknown };
      expect(entry).toMatchObject({ actor_id: null, after: { ok: true } });
    });
  });
}

migrationSuite('PostgreSQL', async () => {
  const database: TestDatabase = await createTestDatabase({ migrated: false });
  return { knex: database.knex, close: () => database.destroy() };
});

migrationSuite('PGlite', async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'devplein-pglite-'));
  const knex = createKnex({ dataDir });
  return {
    knex,
    close: async () => {
      await knex.destroy();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
});

describe('createTestDatabase', () => {
  it('clones a migrated template into independent databases', async () => {
    const [first, second] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    try {
      expect(first.url).not.toBe(second.url);
      for (const database of [first, second]) {
        const names = (await database.knex('knex_migrations').orderBy('id').pluck('name')) as string[];
        expect(names).toEqual(migrationNames);
      }
      await first.knex('groups').insert({ cohort: 'SD99' });
      expect(await second.knex('groups').where({ cohort: 'SD99' }).first()).toBeUndefined();
    } finally {
      await Promise.all([first.destroy(), second.destroy()]);
    }
  });
});
