import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningControlPlane } from '../../support/services/control-plane.ts';
import type { SiteJson } from '@devplein/contract/projects';
import { siteWall } from '@devplein/contract/http/sites';
import { send } from '../../support/clients/endpoint-calls.ts';
import { HttpSession } from '../../support/clients/http-session.ts';
import { revalidate, startSiteWall, WALL_PNG, type SiteWall } from '../../support/fixtures/site-wall.ts';

const PLACEHOLDER = { id: 0, name: 'unknown', group: { id: 0, cohort: 'Niet ingedeeld' } };

let database: SiteWall['database'];
let app: RunningControlPlane;

beforeAll(async () => {
  ({ database, app } = await startSiteWall());
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
    // send() checks each answer against the contract's schema of the wall.
    const answers = await Promise.all(sessions.map((session) => send(session, siteWall, {})));
    for (const answer of answers) expect(answer.status).toBe(200);
    for (const answer of answers.slice(1)) expect(answer.ok && answer.body).toEqual(answers[0]!.ok && answers[0]!.body);
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
    expect(Object.keys(webshop!).sort()).toEqual(['domain', 'name', 'thumbnail', 'users']);
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

  it('says which sites have a thumbnail: a stored picture whose last capture did not fail', async () => {
    const { body } = await new HttpSession(app.url).json<SiteJson[]>('GET', '/api/sites');
    const withThumbnail = body.filter((site) => site.thumbnail).map((site) => site.name);
    // sam-portfolio and quiz-master (stored without an ETag) have one; daan-portfolio's last
    // capture failed (its URL answers 404); olga-api has one but is not on the wall.
    expect(withThumbnail.sort()).toEqual(['quiz-master', 'sam-portfolio']);
    for (const site of body) expect(typeof site.thumbnail).toBe('boolean');
    for (const name of withThumbnail) expect((await fetch(`${app.url}/misc/browserimg2/small/${name}_s.png`)).status).toBe(200);
    expect((await fetch(`${app.url}/misc/browserimg2/small/daan-portfolio_s.png`)).status).toBe(404);
    expect((await fetch(`${app.url}/misc/browserimg2/small/webshop-groen_s.png`)).status).toBe(404);

    // A new capture shows on the next request (the kept answer is rebuilt when the data changes).
    const webshop = await database.knex('projects').where({ name: 'webshop-groen' }).first<{ id: number }>('id');
    await database.knex('thumbnails').insert({ project_id: webshop!.id, png: WALL_PNG, etag: 'new1', captured_at: new Date() });
    try {
      const after = await new HttpSession(app.url).json<SiteJson[]>('GET', '/api/sites');
      expect(after.body.find((site) => site.name === 'webshop-groen')?.thumbnail).toBe(true);
    } finally {
      await database.knex('thumbnails').where({ project_id: webshop!.id }).delete();
    }
  });

  it('sends an ETag and answers 304 when it still matches; a change makes a new one', async () => {
    const session = new HttpSession(app.url);
    const first = await session.api('GET', '/api/sites');
    const etag = first.headers.get('etag');
    // Weak when the answer is compressed (the ETag names the JSON, not the encoded bytes).
    expect(etag).toMatch(/^(W\/)?".+"$/);
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
