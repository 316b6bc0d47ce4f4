import { describe, expect, it } from 'vitest';
import { seededControlPlane } from '../../support/stacks/seeded-control-plane.ts';
import { HttpSession, signedInSessions } from '../../support/clients/http-session.ts';
import type { ProjectJson } from '@devplein/contract/projects';
import type { ErrorJson } from '@devplein/contract/http/errors';

const SITE = 'dev.devplein.test';
const QUOTA = 4;
const ADMIN = 'admin@devplein.test';
const DOCENT = 'docent@devplein.test';
const DEVELOPER = 'ontwikkelaar@devplein.test';
const STUDENT = 'student@devplein.test';
const NO_GROUP = 'zonderklas@devplein.test';
const NOT_ACTIVATED = 'nieuw@devplein.test';
const DESCRIPTION = 'Een website voor de open dag met het rooster en een inschrijfformulier.';

const stack = seededControlPlane({ env: { SITE_DOMAIN: SITE, PROJECT_QUOTA: String(QUOTA) } });

const as = signedInSessions(() => stack.app.url);

async function anonymous(): Promise<HttpSession> {
  const session = new HttpSession(stack.app.url);
  await session.primeCsrf();
  return session;
}

async function userId(email: string): Promise<number> {
  const row = await stack.database.knex('users').where({ email }).first<{ id: number }>('id');
  return row.id;
}

let counter = 0;
/** A valid request body with a fresh name. */
function request(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  counter += 1;
  const name = `proj-${'abcdefghij'[counter % 10]}${'klmnopqrst'[Math.floor(counter / 10) % 10]}`;
  return {
    name,
    domain: `${name}.${SITE}`,
    docker_id: 2,
    description: DESCRIPTION,
    visible: '1',
    users: [],
    repro: '',
    end_date: '',
    ...overrides,
  };
}

async function projectByName(name: string): Promise<{ id: number; validated: boolean | null }> {
  return stack.database.knex('projects').where({ name }).first('id', 'validated');
}

/** Removes a test's projects so the quota of the demo student is not used up by other tests. */
async function removeProjects(names: string[]): Promise<void> {
  await stack.database.knex('projects').whereIn('name', names).delete();
}

describe('GET /api/dockers (image options)', () => {
  it('lists {id, name} to every activated user; 401 signed out, 403 not activated', async () => {
    for (const email of [STUDENT, DEVELOPER, ADMIN]) {
      const { status, body } = await (await as(email)).json<{ id: number; name: string }[]>('GET', '/api/dockers');
      expect(status, email).toBe(200);
      expect(body[0]).toEqual({ id: 1, name: 'Anders (docent kiest)' });
      expect(Object.keys(body[1] ?? {})).toEqual(['id', 'name']);
    }
    expect((await (await anonymous()).json('GET', '/api/dockers')).status).toBe(401);
    expect((await (await as(NOT_ACTIVATED)).json('GET', '/api/dockers')).status).toBe(403);
  });
});

describe('POST /api/user/project', () => {
  it('creates a request awaiting approval with the creator as first member', async () => {
    const other = await userId(NO_GROUP);
    const body = request({ domain: `Open-Dag.${SITE.toUpperCase()}`, name: 'open-dag', users: [other, other], repro: 'git@git.devplein.test:sam/open-dag.git', end_date: '2026-07-01', visible: true });
    const { status, body: project } = await (await as(STUDENT)).json<ProjectJson>('POST', '/api/user/project', body);
    expect(status).toBe(201);
    expect(project).toMatchObject({
      name: 'open-dag',
      domain: `open-dag.${SITE}`,
      docker_id: 2,
      docker: 'PHP 8.3 + Apache',
      visible: '1',
      validated: null,
      end_date: '2026-07-01',
      repro: 'git@git.devplein.test:sam/open-dag.git',
    });
    expect(project.users.map((user) => user.id)).toEqual([await userId(STUDENT), other]);
    expect(project.users[0]?.group?.cohort).toBe('SD23');
    expect(project.users[1]?.group).toBeNull();
    await removeProjects(['open-dag']);
  });

  it('refuses anonymous visitors (401) and not activated users (403)', async () => {
    expect((await (await anonymous()).json('POST', '/api/user/project', request())).status).toBe(401);
    expect((await (await as(NOT_ACTIVATED)).json('POST', '/api/user/project', request())).status).toBe(403);
  });

  it('answers 422 with field errors for every rule of §5, never 500', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'a' }, 'name'],
      [{ name: 'Hoofdletters' }, 'name'],
      [{ name: 'met spatie' }, 'name'],
      [{ name: '1abc' }, 'name'],
      [{ name: 'a'.repeat(64) }, 'name'],
      [{ name: 42 }, 'name'],
      [{ domain: 'a.b' }, 'domain'],
      [{ domain: 'geen domein' }, 'domain'],
      [{ domain: 'site.example.com' }, 'domain'],
      [{ domain: SITE }, 'domain'],
      [{ domain: `x.${SITE}.evil.com` }, 'domain'],
      [{ docker_id: -1 }, 'docker_id'],
      [{ docker_id: 'php' }, 'docker_id'],
      [{ docker_id: 9999 }, 'docker_id'],
      [{ description: 'te kort' }, 'description'],
      [{ description: 'x'.repeat(39) }, 'description'],
      [{ visible: 'ja' }, 'visible'],
      [{ users: 'iedereen' }, 'users'],
      [{ users: [999_999] }, 'users'],
      [{ users: [-3] }, 'users'],
      [{ repro: 'ftp://git.example/x.git' }, 'repro'],
      [{ repro: `https://git.example/${'x'.repeat(300)}` }, 'repro'],
      [{ end_date: '2026-02-30' }, 'end_date'],
      [{ end_date: 'morgen' }, 'end_date'],
      // Text PostgreSQL cannot store: these used to answer 500 (found by tests/property).
      [{ description: `${DESCRIPTION}\u0000` }, 'description'],
      [{ repro: 'https://git.example/x\u0000.git' }, 'repro'],
      [{ description: `${DESCRIPTION}\ud800` }, 'description'],
    ];
    const session = await as(STUDENT);
    for (const [change, field] of cases) {
      const { status, body } = await session.json<ErrorJson>('POST', '/api/user/project', request(change));
      expect(status, JSON.stringify(change)).toBe(422);
      expect(Object.keys(body.errors ?? {}), JSON.stringify(change)).toContain(field);
    }
    const empty = await session.json<ErrorJson>('POST', '/api/user/project', {});
    expect(empty.status).toBe(422);
    expect(Object.keys(empty.body.errors ?? {})).toEqual(expect.arrayContaining(['name', 'domain', 'docker_id', 'description']));
  });

  it('refuses members who are not activated', async () => {
    const { status, body } = await (await as(STUDENT)).json<ErrorJson>('POST', '/api/user/project', request({ users: [await userId(NOT_ACTIVATED)] }));
    expect(status).toBe(422);
    expect(body.errors?.users).toHaveLength(1);
  });

  it('keeps names and domains unique', async () => {
    const session = await as(DEVELOPER);
    const sameName = await session.json<ErrorJson>('POST', '/api/user/project', request({ name: 'sam-portfolio', domain: `elders.${SITE}` }));
    expect(sameName.status).toBe(422);
    expect(sameName.body.errors?.name).toEqual(['Deze naam is al in gebruik. Kies een andere naam.']);
    const sameDomain = await session.json<ErrorJson>('POST', '/api/user/project', request({ domain: `SAM-portfolio.${SITE}` }));
    expect(sameDomain.status).toBe(422);
    expect(sameDomain.body.errors?.domain).toEqual(['Dit domein is al in gebruik. Kies een ander domein.']);
  });

  it(`stops a student at the quota (${QUOTA} projects) with a Dutch message; admins have none`, async () => {
    const session = await as(STUDENT);
    // The quota counts the projects the student requested (and is still a member of).
    const owned = Number(
      (await stack.database.knex('projects as p').join('project_user as pu', 'pu.project_id', 'p.id').where({ 'p.created_by': await userId(STUDENT), 'pu.user_id': await userId(STUDENT) }).count('* as count'))[0]?.count,
    );
    const made: string[] = [];
    for (let i = owned; i < QUOTA; i++) {
      const body = request();
      expect((await session.json('POST', '/api/user/project', body)).status).toBe(201);
      made.push(String(body.name));
    }
    const refused = await session.json<ErrorJson>('POST', '/api/user/project', request());
    expect(refused.status).toBe(422);
    expect(refused.body.message).toBe(`Je hebt al ${QUOTA} projecten aangevraagd; meer mag niet. Verwijder eerst een project dat je niet meer gebruikt, of vraag een docent om hulp.`);
    expect(refused.body.errors?.project).toEqual([refused.body.message]);
    await removeProjects(made);

    const adminMade: string[] = [];
    for (let i = 0; i <= QUOTA; i++) {
      const body = request();
      expect((await (await as(DOCENT)).json('POST', '/api/user/project', body)).status).toBe(201);
      adminMade.push(String(body.name));
    }
    await removeProjects(adminMade);
  });
});

describe('PUT and DELETE /api/user/project/{id}', () => {
  it('lets members edit (domain lowercased); an approved project goes back to awaiting approval', async () => {
    const body = request({ name: 'kleur-app', domain: `kleur-app.${SITE}` });
    const created = await (await as(DEVELOPER)).json<ProjectJson>('POST', '/api/user/project', body);
    const id = created.body.id;
    await stack.database.knex('projects').where({ id }).update({ validated: true });
    const edited = await (await as(DEVELOPER)).json<ProjectJson>('PUT', `/api/user/project/${id}`, {
      ...body,
      domain: `Kleuren.${SITE}`,
      users: [await userId(STUDENT)],
    });
    expect(edited.status).toBe(200);
    expect(edited.body.domain).toBe(`kleuren.${SITE}`);
    expect(edited.body.validated).toBeNull();
    // The editor stays a member, first.
    expect(edited.body.users.map((user) => user.id)).toEqual([await userId(DEVELOPER), await userId(STUDENT)]);

    // Now the student is a member too: they may edit.
    expect((await (await as(STUDENT)).json('PUT', `/api/user/project/${id}`, { ...body, domain: `kleuren.${SITE}` })).status).toBe(200);
  });

  it("keeps an approved project approved when an admin edits it, and records the edit", async () => {
    const project = await projectByName('webshop-groen');
    expect(project.validated).toBe(true);
    const current = (await (await as(ADMIN)).json<ProjectJson[]>('GET', '/api/admin/projects?all=true')).body.find((p) => p.id === project.id)!;
    const { status, body } = await (await as(ADMIN)).json<ProjectJson>('PUT', `/api/user/project/${project.id}`, {
      ...current,
      users: current.users.map((user) => user.id),
      description: `${current.description} Bijgewerkt door de docent.`,
    });
    expect(status).toBe(200);
    expect(body.validated).toBe(true);
    expect(body.users.map((user) => user.id)).toEqual(current.users.map((user) => user.id));
    const audit = await stack.database.knex('audit_log').where({ action: 'project.update', subject_id: String(project.id) }).first();
    expect(audit).toBeTruthy();
  });

  it('answers 404 to non-members (someone else\'s project) and for unknown ids; 422 for a bad id', async () => {
    const project = await projectByName('olga-api');
    const session = await as(STUDENT);
    const body = request({ name: 'olga-api', domain: `olga-api.${SITE}` });
    expect((await session.json('PUT', `/api/user/project/${project.id}`, body)).status).toBe(404);
    expect((await session.json('DELETE', `/api/user/project/${project.id}`)).status).toBe(404);
    expect((await session.json('PUT', '/api/user/project/999999', body)).status).toBe(404);
    expect((await session.json('PUT', '/api/user/project/abc', body)).status).toBe(422);
    expect((await (await anonymous()).json('PUT', `/api/user/project/${project.id}`, body)).status).toBe(401);
    expect((await (await as(NOT_ACTIVATED)).json('DELETE', `/api/user/project/${project.id}`)).status).toBe(403);
  });

  it('GET /api/user/project/{id} (the edit form): members and admins; 404 for others', async () => {
    const project = await projectByName('kantine-app');
    const path = `/api/user/project/${project.id}`;
    const mine = await (await as(STUDENT)).json<ProjectJson>('GET', path);
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ name: 'kantine-app', docker: 'Node.js 20', validated: null });
    expect((await (await as(DOCENT)).json('GET', path)).status).toBe(200);
    expect((await (await as(DEVELOPER)).json('GET', path)).status).toBe(404);
    expect((await (await as(NOT_ACTIVATED)).json('GET', path)).status).toBe(403);
    expect((await (await anonymous()).json('GET', path)).status).toBe(401);
    expect((await (await as(STUDENT)).json('GET', '/api/user/project/0')).status).toBe(422);
  });

  it('lets a member delete their project', async () => {
    const body = request();
    const created = await (await as(NO_GROUP)).json<ProjectJson>('POST', '/api/user/project', body);
    expect((await (await as(NO_GROUP)).json('DELETE', `/api/user/project/${created.body.id}`)).status).toBe(204);
    expect(await projectByName(String(body.name))).toBeUndefined();
  });
});
