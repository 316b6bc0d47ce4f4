import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import { createTestDatabase } from '../../support/database.ts';
import { seedDemoData } from '../../../control-plane/src/db/seed.ts';
import { startControlPlane, type RunningControlPlane } from '../../support/control-plane.ts';
import { HttpSession } from '../../support/http-session.ts';

interface SiteJson {
  name: string;
  domain: string;
  users: { id: number; name: string; group: { id: number; cohort: string } | null }[];
}

const PNG = readFileSync(new URL('../../../web/public/images/without-screen.png', import.meta.url));
const PLACEHOLDER = { id: 0, name: 'unknown', group: { id: 0, cohort: 'Niet ingedeeld' } };

/**
 * Conditional request headers as a browser's cache sends them. fetch() itself would add
 * `Cache-Control: no-cache` next to a hand-set If-None-Match (fetch spec), which rightly
 * forces a full answer; naming a Cache-Control of our own keeps it out.
 */
const revalidate = (etag: string): Record<string, string> => ({ 'If-None-Match': etag, 'Cache-Control': 'max-age=0' });

let database: { url: string; knex: Knex; destroy: () => Promise<void> };
let app: RunningControlPlane;

async function projectId(name: string): Promise<number> {
  const row = await database.knex('projects').where({ name }).first<{ id: number }>('id');
  if (!row) throw new Error(`no project ${name}`);
  return row.id;
}

beforeAll(async () => {
  database = await createTestDatabase();
  await seedDemoData(database.knex);
  const knex = database.knex;
  // A visible project without members, one whose first member is in a group but the second
  // is not, and thumbnails: a good one, one of a hidden project, and a failed capture.
  const [{ id: orphan }] = (await knex('projects')
    .insert({ name: 'wees-project', domain: 'wees-project.dev.devplein.test', visible: true, validated: true })
    .returning('id')) as [{ id: number }];
  expect(orphan).toBeGreaterThan(0);
  await knex('thumbnails').insert([
    { project_id: await projectId('sam-portfolio'), png: PNG, etag: 'abc123', captured_at: '2026-11-01T10:00:00Z' },
    { project_id: await projectId('olga-api'), png: PNG, etag: 'hidden1', captured_at: '2026-11-01T10:00:00Z' },
    {
      project_id: await projectId('daan-portfolio'),
      png: PNG,
      etag: 'old1',
      captured_at: '2026-10-01T10:00:00Z',
      last_error: 'timeout',
      last_attempt_at: '2026-11-01T10:00:00Z',
    },
    { project_id: await projectId('quiz-master'), png: PNG, etag: null, captured_at: '2026-11-01T10:00:00Z' },
  ]);
  app = await startControlPlane({ databaseUrl: database.url });
});

afterAll(async () => {
  await app?.stop();
  await database?.destroy();
});

async function signedIn(email: string): Promise<HttpSession> {
  const session = new HttpSession(app.url);
  await session.signIn(email);
  return session;
}

/** What the wall must contain, from the database: visible projects, sorted by cohort then name, 'Niet ingedeeld' last. */
async function expectedNames(): Promise<string[]> {
  const rows = await database.knex.raw<{ rows: { name: string; cohort: string | null }[] }>(`
    select p.name,
      (select g.cohort from project_user pu join users u on u.id = pu.user_id left join groups g on g.id = u.group_id
        where pu.project_id = p.id order by pu.position, u.id limit 1) as cohort
    from projects p where p.visible and p.validated`);
  const collator = new Intl.Collator('nl', { numeric: true });
  return rows.rows
    .map((row) => ({ name: row.name, cohort: row.cohort ?? '\uffffNiet ingedeeld' }))
    .sort((a, b) => collator.compare(a.cohort, b.cohort) || collator.compare(a.name, b.name))
    .map((row) => row.name);
}

describe('GET /api/sites: the websites wall', () => {
  it('answers every role (anonymous, not activated, student, developer, admin) with the same list', async () => {
    const sessions = [
      new HttpSession(app.url),
      await signedIn('nieuw@devplein.test'),
      await signedIn('student@devplein.test'),
      await signedIn('ontwikkelaar@devplein.test'),
      await signedIn('docent@devplein.test'),
      await signedIn('admin@devplein.test'),
    ];
    const answers = await Promise.all(sessions.map((session) => session.json<SiteJson[]>('GET', '/api/sites')));
    for (const answer of answers) expect(answer.status).toBe(200);
    for (const answer of answers.slice(1)) expect(answer.body).toEqual(answers[0]!.body);
  });

  it('lists only approved, visible projects, sorted by cohort then name, with members in entered order', async () => {
    const { body } = await new HttpSession(app.url).json<SiteJson[]>('GET', '/api/sites');
    const names = body.map((site) => site.name);
    expect(names).toEqual(await expectedNames());
    // Hidden ones, and visible requests that are rejected (recepten-site) or await approval (game-jam).
    const hidden = (
      await database.knex('projects').where({ visible: false }).orWhereNot('validated', true).orWhereNull('validated').select<{ name: string }[]>('name')
    ).map((r) => r.name);
    expect(hidden).toEqual(expect.arrayContaining(['recepten-site', 'game-jam', 'olga-api']));
    for (const name of hidden) expect(names).not.toContain(name);

    const webshop = body.find((site) => site.name === 'webshop-groen');
    expect(webshop).toMatchObject({ domain: 'webshop-groen.dev.devplein.test' });
    expect(webshop?.users.map((user) => user.name)).toEqual(['Olga Ontwikkelaar', 'Lars de Graaf', 'Emma Smits']);
    expect(webshop?.users[0]?.group).toMatchObject({ cohort: 'SD22' });
    expect(Object.keys(webshop!.users[0]!).sort()).toEqual(['group', 'id', 'name']);
    // Cohorts in order, 'Niet ingedeeld' as the last block.
    const cohorts = [...new Set(body.map((site) => site.users[0]?.group?.cohort))];
    expect(cohorts).toEqual(['SD20', 'SD21', 'SD22', 'SD23', 'Niet ingedeeld']);
  });

  it('puts a site whose first member has no group (or no members) under the placeholder user of §3', async () => {
    const { body } = await new HttpSession(app.url).json<SiteJson[]>('GET', '/api/sites');
    const zoe = body.find((site) => site.name === 'zoe-blog');
    expect(zoe?.users[0]).toEqual(PLACEHOLDER);
    expect(zoe?.users[1]).toMatchObject({ name: 'Zoë Zonderklas', group: null });
    const orphan = body.find((site) => site.name === 'wees-project');
    expect(orphan?.users).toEqual([PLACEHOLDER]);
    const grouped = body.filter((site) => site.users[0]?.group?.cohort !== 'Niet ingedeeld');
    for (const site of grouped) expect(site.users[0]?.id).toBeGreaterThan(0);
  });

  it('sends an ETag and answers 304 when it still matches; a change makes a new one', async () => {
    const session = new HttpSession(app.url);
    const first = await session.api('GET', '/api/sites');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^".+"$/);
    expect(first.headers.get('cache-control')).toBe('no-cache');
    const again = await session.api('GET', '/api/sites', undefined, revalidate(etag!));
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');

    await database.knex('projects').where({ name: 'quiz-master' }).update({ visible: false });
    try {
      const changed = await session.api('GET', '/api/sites', undefined, revalidate(etag!));
      expect(changed.status).toBe(200);
      expect(changed.headers.get('etag')).not.toBe(etag);
      const names = ((await changed.json()) as SiteJson[]).map((site) => site.name);
      expect(names).not.toContain('quiz-master');
    } finally {
      await database.knex('projects').where({ name: 'quiz-master' }).update({ visible: true });
    }
  });
});

describe('GET /misc/browserimg2/small/{name}_s.png: stored thumbnails', () => {
  const url = (file: string) => `${app.url}/misc/browserimg2/small/${file}`;

  it('serves the PNG of a visible project with ETag, Last-Modified and a short must-revalidate cache', async () => {
    const response = await fetch(url('sam-portfolio_s.png'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('etag')).toBe('"abc123"');
    expect(response.headers.get('last-modified')).toBe(new Date('2026-11-01T10:00:00Z').toUTCString());
    expect(response.headers.get('cache-control')).toMatch(/max-age=\d+, must-revalidate/);
    expect(Buffer.from(await response.arrayBuffer()).equals(PNG)).toBe(true);

    const revalidated = await fetch(url('sam-portfolio_s.png'), { headers: revalidate('"abc123"') });
    expect(revalidated.status).toBe(304);
    const byDate = await fetch(url('sam-portfolio_s.png'), {
      headers: { 'If-Modified-Since': new Date('2026-11-02T00:00:00Z').toUTCString(), 'Cache-Control': 'max-age=0' },
    });
    expect(byDate.status).toBe(304);
    const stale = await fetch(url('sam-portfolio_s.png'), { headers: revalidate('"other"') });
    expect(stale.status).toBe(200);
  });

  it('derives an ETag from the bytes when none was stored', async () => {
    const response = await fetch(url('quiz-master_s.png'));
    expect(response.status).toBe(200);
    const etag = `"${createHash('sha1').update(PNG).digest('base64url')}"`;
    expect(response.headers.get('etag')).toBe(etag);
    expect((await fetch(url('quiz-master_s.png'), { headers: revalidate(etag) })).status).toBe(304);
  });

  it('answers a plain 404 for hidden, unknown, thumbnail-less and failed captures', async () => {
    for (const file of ['olga-api_s.png', 'bestaat-niet_s.png', 'lotte-fotografie_s.png', 'daan-portfolio_s.png']) {
      const response = await fetch(url(file));
      expect(response.status, file).toBe(404);
      expect(response.headers.get('content-type'), file).toMatch(/^text\/plain/);
    }
  });

  it('refuses bad names with a 404 and never a 500 (and the web app does not swallow /misc)', async () => {
    const bad = [
      '..%2Fx_s.png',
      '..%2F..%2Fetc%2Fpasswd',
      'sam-portfolio.png',
      'sam-portfolio_s.jpg',
      'Sam-portfolio_s.png',
      'sam_portfolio_s.png',
      '1abc_s.png',
      `${'a'.repeat(64)}_s.png`,
      "x'%20or%201=1_s.png",
      '%00_s.png',
      '%E0%A4%A_s.png',
    ];
    for (const file of bad) {
      const response = await fetch(url(file));
      expect([400, 404], file).toContain(response.status);
      expect(response.headers.get('content-type') ?? '', file).not.toMatch(/html/);
    }
    const unrouted = await fetch(`${app.url}/misc/something-else`);
    expect(unrouted.status).toBe(404);
    expect(unrouted.headers.get('content-type') ?? '').not.toMatch(/html/);
  });

  it('answers for every role alike (thumbnails are public like the wall)', async () => {
    for (const email of ['nieuw@devplein.test', 'student@devplein.test', 'admin@devplein.test']) {
      const session = await signedIn(email);
      const response = await session.raw('/misc/browserimg2/small/sam-portfolio_s.png');
      expect(response.status, email).toBe(200);
      const hidden = await session.raw('/misc/browserimg2/small/olga-api_s.png');
      expect(hidden.status, email).toBe(404);
    }
  });
});
