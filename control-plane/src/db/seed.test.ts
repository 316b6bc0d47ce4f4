import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slugifyName } from '../lib/slugify-name.ts';
import { createKnex, migrate } from './knex.ts';
import { DEMO_SITE_DOMAIN, seedDemoData } from './seed.ts';

/*
 * The demo data must itself obey the product's rules (spec §5, §9), or demos and tests built on
 * it show things a real user could never make. Runs on embedded PGlite.
 */
describe('seedDemoData', { timeout: 60_000 }, () => {
  let dataDir: string;
  let knex: Knex;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'devplein-seed-'));
    knex = createKnex({ dataDir });
    await migrate(knex);
    await seedDemoData(knex);
  });
  afterAll(async () => {
    await knex?.destroy();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('refuses to seed a database that already has users', async () => {
    await expect(seedDemoData(knex)).rejects.toThrow(/not empty/);
  });

  it('gives every user a lowercase e-mail address and the slug of their name', async () => {
    const users = (await knex('users').select('name', 'name_slug', 'email')) as Array<{ name: string; name_slug: string; email: string }>;
    expect(users.length).toBeGreaterThanOrEqual(45);
    for (const user of users) {
      expect(user.email).toBe(user.email.toLowerCase());
      expect(user.name_slug).toBe(slugifyName(user.name));
    }
    expect(users.find((user) => user.email === 'zonderklas@devplein.test')?.name_slug).toBe('zoe-zonderklas');
  });

  it('spreads students over every cohort and leaves some without a group', async () => {
    const perCohort = (await knex('users')
      .leftJoin('groups', 'groups.id', 'users.group_id')
      .where('users.admin', false)
      .groupBy('groups.cohort')
      .select('groups.cohort')
      .count({ count: '*' })) as Array<{ cohort: string | null; count: number }>;
    const counts = new Map(perCohort.map((row) => [row.cohort, row.count]));
    for (const cohort of ['SD20', 'SD21', 'SD22', 'SD23', null]) expect(counts.get(cohort) ?? 0).toBeGreaterThanOrEqual(3);
    const [{ developers }] = (await knex('users').where({ developer: true, admin: false }).count({ developers: '*' })) as [{ developers: number }];
    expect(developers).toBeGreaterThanOrEqual(5);
  });

  it('makes projects a student could have requested (spec §5)', async () => {
    const projects = (await knex('projects').select('name', 'domain', 'description', 'docker_image_id')) as Array<{
      name: string; domain: string; description: string; docker_image_id: number | null;
    }>;
    for (const project of projects) {
      expect(project.name).toMatch(/^[a-z-]{2,}$/);
      expect(project.domain).toBe(`${project.name}.${DEMO_SITE_DOMAIN}`);
      expect(project.domain).toMatch(/^[a-z.-]{2,}\.[a-z]{2,}$/);
      expect(project.description.length, project.name).toBeGreaterThanOrEqual(40);
      expect(project.docker_image_id).not.toBeNull();
    }
    const states = (await knex('projects').select('visible', 'validated')) as Array<{ visible: boolean; validated: boolean | null }>;
    expect(new Set(states.map((state) => String(state.validated)))).toEqual(new Set(['true', 'false', 'null']));
    expect(new Set(states.map((state) => state.visible))).toEqual(new Set([true, false]));
  });

  it('gives levels only to activated SD students, within their category', async () => {
    const levels = (await knex('levels')
      .join('users', 'users.id', 'levels.user_id')
      .leftJoin('groups', 'groups.id', 'users.group_id')
      .join('level_categories', 'level_categories.id', 'levels.level_category_id')
      .select('levels.number', 'levels.status', 'groups.cohort', 'users.email_verified_at', 'level_categories.number as category_size')) as Array<{
      number: number; status: string; cohort: string | null; email_verified_at: Date | null; category_size: number;
    }>;
    expect(levels.length).toBeGreaterThan(0);
    for (const level of levels) {
      expect(level.cohort).toMatch(/^SD/);
      expect(level.email_verified_at).not.toBeNull();
      expect(level.number).toBeLessThanOrEqual(level.category_size);
    }
    expect(new Set(levels.map((level) => level.status))).toEqual(new Set(['locked', 'open', 'success']));
    // The category of 16 shows only 10 levels outside SD20/SD21 (spec §9): keep their levels within that.
    const beyondTen = levels.filter((level) => level.category_size === 16 && level.number > 10 && !['SD20', 'SD21'].includes(level.cohort ?? ''));
    expect(beyondTen).toEqual([]);
  });

  it('gives team 1 members including the admin, and level content courses with texts', async () => {
    const teamOne = (await knex('team_user').join('users', 'users.id', 'team_user.user_id').where('team_user.team_id', 1).pluck('users.email')) as string[];
    expect(teamOne).toContain('admin@devplein.test');
    expect(teamOne.length).toBeGreaterThan(2);
    const contentsWithoutCourses = await knex('level_contents').whereNotExists(knex('courses').whereRaw('courses.level_content_id = level_contents.id'));
    expect(contentsWithoutCourses).toEqual([]);
    const coursesWithoutTexts = await knex('courses').whereNotExists(knex('course_texts').whereRaw('course_texts.course_id = courses.id'));
    expect(coursesWithoutTexts).toEqual([]);
  });
});
