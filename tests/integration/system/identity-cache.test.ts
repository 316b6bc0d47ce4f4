import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CurrentUserJson } from '@devplein/contract/users';
import { startControlPlane, type RunningControlPlane } from '../../support/services/control-plane.ts';
import { HttpSession } from '../../support/clients/http-session.ts';
import { startHostingStack, ADMIN, type HostingStack } from '../../support/stacks/hosting-stack.ts';

/*
 * The identity cache (control-plane/src/auth/identity-cache.ts): sessions, current users and
 * /api/user's level progress are kept in memory, and every kind of change is seen by the very
 * next request — on the process that made the change and on a second control plane on the same
 * PostgreSQL database (the notices of migration 0011 through LISTEN/NOTIFY). Each test first
 * reads /api/user on both processes, so the old state is in both caches before the change.
 */

let stack: HostingStack;
let second: RunningControlPlane;
let admin: HttpSession;

beforeAll(async () => {
  stack = await startHostingStack();
  second = await startControlPlane({ databaseUrl: stack.database.url });
  admin = await stack.as(ADMIN);
});

afterAll(async () => {
  await second?.stop();
  await stack?.stop();
});

/** The session cookies of `session` (kept: a sign-out empties the session's own jar). */
const sessionCookies = (session: HttpSession): string =>
  ['devplein_session', 'devplein_session.sig'].map((name) => `${name}=${session.cookie(name) ?? ''}`).join('; ');

/** GET /api/user with `session`'s cookies, on the process at `baseUrl`. */
async function me(baseUrl: string, session: HttpSession | string): Promise<{ status: number; body: CurrentUserJson }> {
  const cookie = typeof session === 'string' ? session : sessionCookies(session);
  const response = await fetch(`${baseUrl}/api/user`, { headers: { cookie, accept: 'application/json', 'x-requested-with': 'XMLHttpRequest' } });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as CurrentUserJson };
}

/** Both processes' answer to GET /api/user for `session`. */
async function onBoth(session: HttpSession | string) {
  return Promise.all([me(stack.app.url, session), me(second.url, session)]);
}

/** A fresh developer, signed in, whose /api/user both processes have cached. */
async function cachedDeveloper(name: string) {
  const developer = await stack.newDeveloper(name);
  for (const answer of await onBoth(developer.session)) expect(answer.status).toBe(200);
  // Twice: the second read is the one served from the cache.
  for (const answer of await onBoth(developer.session)) expect(answer.status).toBe(200);
  return developer;
}

describe('the next request after a change, on this process and on another one', () => {
  it('developer flag cleared by an admin (a revocation): signed out on both processes', async () => {
    const developer = await cachedDeveloper('Vlag Uit');
    const answer = await admin.json('PUT', `/api/admin/users/${developer.id}/developer`, { developer: false });
    expect(answer.status).toBe(200);
    for (const { status } of await onBoth(developer.session)) expect(status).toBe(401);
  });

  it('developer flag set by an admin', async () => {
    const developer = await cachedDeveloper('Vlag Aan');
    await stack.database.knex('users').where({ id: developer.id }).update({ developer: false });
    for (const { body } of await onBoth(developer.session)) expect(body.developer).toBe(false);
    const answer = await admin.json('PUT', `/api/admin/users/${developer.id}/developer`, { developer: true });
    expect(answer.status).toBe(200);
    for (const { body } of await onBoth(developer.session)) expect(body.developer).toBe(true);
  });

  it('admin flag set in the database', async () => {
    const developer = await cachedDeveloper('Nieuwe Docent');
    await stack.database.knex('users').where({ id: developer.id }).update({ admin: true });
    for (const { body } of await onBoth(developer.session)) expect(body.admin).toBe(true);
  });

  it('disable: refused on both processes', async () => {
    const developer = await cachedDeveloper('Uitgeschakeld');
    const answer = await admin.json('PUT', `/api/admin/users/${developer.id}?action=disable`);
    expect(answer.status).toBe(200);
    for (const { status } of await onBoth(developer.session)) expect(status).toBe(401);
  });

  it('delete: refused on both processes', async () => {
    const developer = await cachedDeveloper('Verwijderd');
    const answer = await admin.api('DELETE', `/api/admin/users/${developer.id}`);
    expect(answer.status).toBeLessThan(300);
    for (const { status } of await onBoth(developer.session)) expect(status).toBe(401);
  });

  it('sign-out on one process ends the session on the other', async () => {
    const developer = await cachedDeveloper('Uitgelogd');
    const cookies = sessionCookies(developer.session);
    const { answer } = await developer.session.logOut();
    expect(answer.status).toBe(200);
    for (const { status } of await onBoth(cookies)) expect(status).toBe(401);
  });

  it('group: added to a group by an admin, and the group renamed in the database', async () => {
    const developer = await cachedDeveloper('Nieuw In Klas');
    const [group] = await stack.database.knex('groups').insert({ cohort: 'SDCACHE' }).returning<{ id: number }[]>('id');
    const groupId = (group as { id: number }).id;
    expect((await admin.json('PUT', `/api/admin/groups/${groupId}`, { user: developer.id })).status).toBe(200);
    for (const { body } of await onBoth(developer.session)) expect(body.group).toEqual({ id: groupId, cohort: 'SDCACHE' });

    await stack.database.knex('groups').where({ id: groupId }).update({ cohort: 'SDCACHE2' });
    for (const { body } of await onBoth(developer.session)) expect(body.group?.cohort).toBe('SDCACHE2');

    await stack.database.knex('groups').where({ id: groupId }).delete();
    for (const { body } of await onBoth(developer.session)) expect(body.group).toBeNull();
  });

  it('team: toggled by an admin, and the team deleted in the database', async () => {
    const developer = await cachedDeveloper('Nieuw In Team');
    const [team] = await stack.database.knex('teams').insert({ name: 'Cacheteam' }).returning<{ id: number }[]>('id');
    const teamId = (team as { id: number }).id;
    expect((await admin.json('PUT', `/api/admin/teams/${teamId}`, { user: developer.id })).status).toBe(200);
    for (const { body } of await onBoth(developer.session)) expect(body.teams.map((entry) => entry.id)).toContain(teamId);

    await stack.database.knex('teams').where({ id: teamId }).delete();
    for (const { body } of await onBoth(developer.session)) expect(body.teams.map((entry) => entry.id)).not.toContain(teamId);
  });

  it('websites wall: a project hidden, a member renamed and a thumbnail stored, seen by the next request', async () => {
    const wall = async (baseUrl: string) => {
      const response = await fetch(`${baseUrl}/api/sites`, { headers: { accept: 'application/json' } });
      expect(response.status).toBe(200);
      return (await response.json()) as Array<{ name: string; thumbnail: boolean; users: Array<{ id: number; name: string }> }>;
    };
    const bothWalls = () => Promise.all([wall(stack.app.url), wall(second.url)]);
    const [before] = await bothWalls();
    await bothWalls();
    const site = before.find((entry) => entry.users.length > 0);
    if (!site) throw new Error('the demo data has no site with members');
    const project = await stack.database.knex('projects').where({ name: site.name }).first<{ id: number }>('id');

    await stack.database.knex('users').where({ id: site.users[0]!.id }).update({ name: 'Herdoopt Lid' });
    for (const sites of await bothWalls()) expect(sites.find((entry) => entry.name === site.name)?.users[0]?.name).toBe('Herdoopt Lid');

    await stack.database.knex('thumbnails').where({ project_id: project.id }).delete();
    for (const sites of await bothWalls()) expect(sites.find((entry) => entry.name === site.name)?.thumbnail).toBe(false);

    await stack.database.knex('projects').where({ id: project.id }).update({ visible: false });
    for (const sites of await bothWalls()) expect(sites.some((entry) => entry.name === site.name)).toBe(false);
  });

  it('thumbnails: replaced, failed, hidden and renamed away, seen by the next request', async () => {
    const fetchTile = async (baseUrl: string, name: string) => {
      const response = await fetch(`${baseUrl}/misc/browserimg2/small/${name}_s.png`);
      return { status: response.status, etag: response.headers.get('etag'), bytes: Buffer.from(await response.arrayBuffer()) };
    };
    const bothTiles = (name: string) => Promise.all([fetchTile(stack.app.url, name), fetchTile(second.url, name)]);
    const knex = stack.database.knex;
    const project = await knex('projects').where({ visible: true, validated: true }).orderBy('id').first<{ id: number; name: string }>('id', 'name');
    if (!project) throw new Error('the demo data has no site on the wall');
    const first = Buffer.from('eerste plaatje');
    await knex('thumbnails')
      .insert({ project_id: project.id, png: first, etag: 'tegel-1', captured_at: new Date(), last_error: null })
      .onConflict('project_id')
      .merge();
    // Twice: the second read is the one served from memory.
    await bothTiles(project.name);
    for (const tile of await bothTiles(project.name)) expect([tile.status, tile.etag, tile.bytes.equals(first)]).toEqual([200, '"tegel-1"', true]);

    const replaced = Buffer.from('tweede plaatje');
    await knex('thumbnails').where({ project_id: project.id }).update({ png: replaced, etag: 'tegel-2' });
    for (const tile of await bothTiles(project.name)) expect([tile.status, tile.etag, tile.bytes.equals(replaced)]).toEqual([200, '"tegel-2"', true]);

    await knex('thumbnails').where({ project_id: project.id }).update({ last_error: 'Time-out' });
    for (const tile of await bothTiles(project.name)) expect(tile.status).toBe(404);
    await knex('thumbnails').where({ project_id: project.id }).update({ last_error: null });
    for (const tile of await bothTiles(project.name)) expect(tile.status).toBe(200);

    await knex('projects').where({ id: project.id }).update({ visible: false });
    for (const tile of await bothTiles(project.name)) expect(tile.status).toBe(404);
    await knex('projects').where({ id: project.id }).update({ visible: true });
    for (const tile of await bothTiles(project.name)) expect(tile.status).toBe(200);

    // Renamed: the old name has no thumbnail any more, the new one does.
    await knex('projects').where({ id: project.id }).update({ name: `${project.name}-nieuw` });
    for (const tile of await bothTiles(project.name)) expect(tile.status).toBe(404);
    for (const tile of await bothTiles(`${project.name}-nieuw`)) expect(tile.status).toBe(200);
    await knex('projects').where({ id: project.id }).update({ name: project.name });
  });

  it('levels: a status set by a teacher and a category renamed', async () => {
    const student = await stack.as('student@devplein.test');
    const before = await onBoth(student);
    const category = before[0].body.levelCategories[0];
    if (!category) throw new Error('the demo student has no level categories');
    const studentId = before[0].body.id;
    const level = await stack.database
      .knex('levels')
      .where({ user_id: studentId, level_category_id: category.id })
      .whereNot({ status: 'success' })
      .orderBy('number')
      .first<{ id: number }>('id');
    const answer = await admin.json('POST', '/api/level/update-status', { level: level.id, status: 'success' });
    expect(answer.status).toBe(200);
    for (const { body } of await onBoth(student)) {
      expect(body.levelCategories.find((entry) => entry.id === category.id)?.finished).toBe(category.finished + 1);
    }

    await stack.database.knex('level_categories').where({ id: category.id }).update({ title: 'Hernoemd' });
    for (const { body } of await onBoth(student)) {
      expect(body.levelCategories.find((entry) => entry.id === category.id)?.title).toBe('Hernoemd');
    }
  });
});
