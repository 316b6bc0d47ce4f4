/**
 * A school-scale database for the benchmarks: the demo seed plus 3,000 students (a tenth
 * without a group, a third developers) and 1,500 visible sites with 1–3 members and thumbnails.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { COHORTS, DEMO_SITE_DOMAIN } from '../../control-plane/src/db/seed.ts';
import { slugifyName } from '../../control-plane/src/lib/slugify-name.ts';

export const EXTRA_USERS = 3000;
export const SITES = 1500;
const root = path.resolve(import.meta.dirname, '../..');

/** Project names allow only a-z and hyphens: number → letters (0 → 'a', 26 → 'ba'). */
export function letters(index: number): string {
  let text = '';
  let rest = index;
  do {
    text = String.fromCharCode(97 + (rest % 26)) + text;
    rest = Math.floor(rest / 26);
  } while (rest > 0);
  return text;
}

const FIRST_NAMES = ['Daan', 'Emma', 'Sem', 'Julia', 'Lucas', 'Mila', 'Finn', 'Tess', 'Noah', 'Sara', 'Liam', 'Zoë', 'Bram', 'Fenna'];
const LAST_NAMES = ['de Jong', 'Jansen', 'de Vries', 'van den Berg', 'Bakker', 'Visser', 'Smit', 'Meijer', 'de Boer', 'Mulder'];

/** Inserts rows in chunks; returns their ids in order. */
async function insertAll(knex: Knex, table: string, rows: readonly object[]): Promise<number[]> {
  const ids: number[] = [];
  for (let start = 0; start < rows.length; start += 500) {
    const inserted = (await knex(table).insert(rows.slice(start, start + 500)).returning('id')) as Array<{ id: number }>;
    ids.push(...inserted.map((row) => row.id));
  }
  return ids;
}

/** 3,000 students over the seed's cohorts plus two more, a tenth without a group; 1,500 visible sites with 1–3 members. */
export async function seedSchoolScale(knex: Knex): Promise<void> {
  const extraCohorts = ['SD24', 'SD25'];
  await knex('groups').insert(extraCohorts.map((cohort) => ({ cohort })));
  const groups = await knex('groups').whereIn('cohort', [...COHORTS, ...extraCohorts]).select<{ id: number }[]>('id');
  const users = Array.from({ length: EXTRA_USERS }, (_, index) => {
    const name = `${FIRST_NAMES[index % FIRST_NAMES.length]} ${LAST_NAMES[Math.floor(index / FIRST_NAMES.length) % LAST_NAMES.length]} ${letters(index)}`;
    return {
      name,
      name_slug: slugifyName(name),
      email: `bench.${index}@student.devplein.test`,
      email_verified_at: '2024-09-02T08:00:00Z',
      developer: index % 3 === 0,
      group_id: index % 10 === 9 ? null : groups[index % groups.length]!.id,
    };
  });
  const userIds = await insertAll(knex, 'users', users);

  await insertSites(knex, userIds, { first: 0, count: SITES, missingThumbnailEvery: 0 });
  await knex.raw('analyze');
}

/**
 * Inserts `count` visible sites named site-{letters(first + i)} with 1–3 of these users as
 * members (first members distinct and spread over every cohort and no group), and a stored
 * thumbnail except every `missingThumbnailEvery`-th site (0: all have one).
 */
async function insertSites(knex: Knex, userIds: readonly number[], options: { first: number; count: number; missingThumbnailEvery: number }): Promise<void> {
  const { first, count, missingThumbnailEvery } = options;
  const projects = Array.from({ length: count }, (_, offset) => {
    const name = `site-${letters(first + offset)}`;
    return { name, domain: `${name}.${DEMO_SITE_DOMAIN}`, visible: true, validated: true, description: 'Benchmarkproject' };
  });
  const projectIds = await insertAll(knex, 'projects', projects);
  const members = projectIds.flatMap((projectId, offset) => {
    const index = first + offset;
    const memberCount = 1 + (index % 3);
    return Array.from({ length: memberCount }, (_, position) => ({
      project_id: projectId,
      // First members are users 0..1499 (spread over every cohort and no group); distinct per site.
      user_id: userIds[(index + position * 1000) % userIds.length]!,
      position,
    }));
  });
  await knex.batchInsert('project_user', members, 1000);
  const png = readFileSync(path.join(root, 'web/public/images/without-screen.png'));
  const thumbnails = projectIds
    .map((projectId, offset) => ({ projectId, index: first + offset }))
    .filter(({ index }) => missingThumbnailEvery === 0 || index % missingThumbnailEvery !== missingThumbnailEvery - 1)
    .map(({ projectId, index }) => ({ project_id: projectId, png, etag: `bench-${index}`, captured_at: new Date().toISOString() }));
  await knex.batchInsert('thumbnails', thumbnails, 200);
}

/**
 * After seedSchoolScale: `count` more visible sites of the same students (site names go on
 * where the first 1,500 stopped), three in four with a thumbnail, so the wall can be measured
 * at a larger scale while the first measurements keep the 1,500.
 */
export async function addSchoolSites(knex: Knex, count: number): Promise<void> {
  const userIds = (await knex('users').where('email', 'like', 'bench.%').orderBy('id').select<{ id: number }[]>('id')).map((row) => row.id);
  await insertSites(knex, userIds, { first: SITES, count, missingThumbnailEvery: 4 });
  await knex.raw('analyze');
}
