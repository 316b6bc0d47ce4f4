/**
 * The websites wall's data: the demo seed plus a project without members and stored thumbnails
 * (a good one, one of a hidden project, a failed capture, one without an ETag), behind a control
 * plane. Shared by tests/integration/control-plane/sites.test.ts (the wall) and thumbnails.test.ts
 * (serving the stored PNGs), which assert on the same rows.
 */
import { readFileSync } from 'node:fs';
import type { Knex } from 'knex';
import { expect } from 'vitest';
import { seedDemoData } from '../../control-plane/src/db/seed.ts';
import { startControlPlane, type RunningControlPlane } from './control-plane.ts';
import { createTestDatabase } from './database.ts';

export const WALL_PNG = readFileSync(new URL('../../web/public/images/without-screen.png', import.meta.url));

/**
 * Conditional request headers as a browser's cache sends them. fetch() itself would add
 * `Cache-Control: no-cache` next to a hand-set If-None-Match (fetch spec), which rightly
 * forces a full answer; naming a Cache-Control of our own keeps it out.
 */
export const revalidate = (etag: string): Record<string, string> => ({ 'If-None-Match': etag, 'Cache-Control': 'max-age=0' });

export interface SiteWall {
  database: { url: string; knex: Knex; destroy: () => Promise<void> };
  app: RunningControlPlane;
}

async function projectId(knex: Knex, name: string): Promise<number> {
  const row = await knex('projects').where({ name }).first<{ id: number }>('id');
  if (!row) throw new Error(`no project ${name}`);
  return row.id;
}

export async function startSiteWall(): Promise<SiteWall> {
  const database = await createTestDatabase();
  await seedDemoData(database.knex);
  const knex = database.knex;
  const PNG = WALL_PNG;
  // A visible project without members, one whose first member is in a group but the second
  // is not, and thumbnails: a good one, one of a hidden project, and a failed capture.
  const [{ id: orphan }] = (await knex('projects')
    .insert({ name: 'wees-project', domain: 'wees-project.dev.devplein.test', visible: true, validated: true })
    .returning('id')) as [{ id: number }];
  expect(orphan).toBeGreaterThan(0);
  await knex('thumbnails').insert([
    { project_id: await projectId(knex, 'sam-portfolio'), png: PNG, etag: 'abc123', captured_at: '2026-11-01T10:00:00Z' },
    { project_id: await projectId(knex, 'olga-api'), png: PNG, etag: 'hidden1', captured_at: '2026-11-01T10:00:00Z' },
    {
      project_id: await projectId(knex, 'daan-portfolio'),
      png: PNG,
      etag: 'old1',
      captured_at: '2026-10-01T10:00:00Z',
      last_error: 'timeout',
      last_attempt_at: '2026-11-01T10:00:00Z',
    },
    { project_id: await projectId(knex, 'quiz-master'), png: PNG, etag: null, captured_at: '2026-11-01T10:00:00Z' },
  ]);
  const app = await startControlPlane({ databaseUrl: database.url });
  return { database, app };
}
