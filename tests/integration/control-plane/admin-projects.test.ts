/**
 * GET, PUT and DELETE /api/admin/projects (routes/admin-projects): the awaiting list and its
 * counter, approving, rejecting and deleting a request, against the real control plane and
 * PostgreSQL with the demo seed.
 */
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
const NOT_ACTIVATED = 'nieuw@devplein.test';

const stack = seededControlPlane({ env: { SITE_DOMAIN: SITE, PROJECT_QUOTA: String(QUOTA) } });

const as = signedInSessions(() => stack.app.url);

async function anonymous(): Promise<HttpSession> {
  const session = new HttpSession(stack.app.url);
  await session.primeCsrf();
  return session;
}

async function projectByName(name: string): Promise<{ id: number; validated: boolean | null }> {
  return stack.database.knex('projects').where({ name }).first('id', 'validated');
}

describe('GET /api/admin/projects', () => {
  it('lists requests awaiting approval with members, image and validated for admins', async () => {
    for (const email of [ADMIN, DOCENT]) {
      const { status, body } = await (await as(email)).json<ProjectJson[]>('GET', '/api/admin/projects');
      expect(status, email).toBe(200);
      expect(body.every((project) => project.validated === null)).toBe(true);
      const kantine = body.find((project) => project.name === 'kantine-app');
      expect(kantine).toMatchObject({ docker: 'Node.js 20', visible: '0', validated: null });
      expect(kantine?.users.map((user) => user.name)).toEqual(['Sam Student', 'Mees Schouten', 'Lieke Willems']);
      expect(kantine?.users[0]?.group?.cohort).toBe('SD23');
    }
  });

  it('?all=true lists approved projects to admins only', async () => {
    const { status, body } = await (await as(DOCENT)).json<ProjectJson[]>('GET', '/api/admin/projects?all=true');
    expect(status).toBe(200);
    expect(body.length).toBeGreaterThan(5);
    expect(body.every((project) => project.validated === true)).toBe(true);
    expect(body.find((project) => project.name === 'oude-intranet')?.users).toEqual([]);
    expect((await (await as(ADMIN)).json('GET', '/api/admin/projects?all=maybe')).status).toBe(422);
  });

  it('answers the awaiting list to a first-team-1 member who is no admin, but not ?all=true', async () => {
    const member = await stack.database
      .knex('users as u')
      .join('team_user as tu', 'tu.user_id', 'u.id')
      .where('tu.team_id', 1)
      .andWhere('u.admin', false)
      .first<{ email: string }>('u.email');
    const session = await as(member.email);
    expect((await session.json('GET', '/api/admin/projects')).status).toBe(200);
    expect((await session.json('GET', '/api/admin/projects?all=true')).status).toBe(403);
  });

  it('refuses everybody else', async () => {
    for (const email of [STUDENT, DEVELOPER]) {
      expect((await (await as(email)).json('GET', '/api/admin/projects')).status, email).toBe(403);
      expect((await (await as(email)).json('GET', '/api/admin/projects?all=true')).status, email).toBe(403);
    }
    expect((await (await as(NOT_ACTIVATED)).json('GET', '/api/admin/projects')).status).toBe(403);
    expect((await (await anonymous()).json('GET', '/api/admin/projects')).status).toBe(401);
  });
});

describe('GET /api/admin/projects (the project request counter)', () => {
  it('lists the projects awaiting approval to admins and to members whose first team is team 1', async () => {
    const waiting = await stack.database.knex('projects').whereNull('validated').orderBy(['created_at', 'id']);
    expect(waiting.length).toBeGreaterThan(0);
    const teamOneStudent = await stack.database
      .knex('users as u')
      .join('team_user as tu', 'tu.user_id', 'u.id')
      .where('tu.team_id', 1)
      .andWhere('u.admin', false)
      .first<{ email: string }>('u.email');
    for (const email of ['admin@devplein.test', 'docent@devplein.test', teamOneStudent.email]) {
      const { status, body } = await (await as(email)).json<Array<{ id: number; name: string }>>('GET', '/api/admin/projects');
      expect(status, email).toBe(200);
      expect(body.map((project) => project.name)).toEqual(waiting.map((project: { name: string }) => project.name));
    }
  });

  it('refuses everybody else: 403 for students and developers outside team 1, 401 signed out', async () => {
    for (const email of ['student@devplein.test', 'ontwikkelaar@devplein.test', 'zonderklas@devplein.test', 'nieuw@devplein.test']) {
      expect((await (await as(email)).json('GET', '/api/admin/projects')).status, email).toBe(403);
    }
    expect((await (await anonymous()).json('GET', '/api/admin/projects')).status).toBe(401);
  });
});

describe('PUT /api/admin/projects/{id} (approve / reject) and DELETE', () => {
  it('toggles: awaiting → approved → rejected → approved, with audit entries', async () => {
    const project = await projectByName('game-jam');
    const session = await as(DOCENT);
    const path = `/api/admin/projects/${project.id}`;
    expect(await session.json('PUT', path, {})).toEqual({ status: 200, body: { validated: true } });
    expect(await session.json('PUT', path, {})).toEqual({ status: 200, body: { validated: false } });
    expect(await session.json('PUT', path, { git: 'https://git.devplein.test/team/game-jam.git' })).toEqual({ status: 200, body: { validated: true } });
    const actions = await stack.database.knex('audit_log').where({ subject_type: 'project', subject_id: String(project.id) }).orderBy('id').pluck('action');
    expect(actions).toEqual(['project.approve', 'project.reject', 'project.approve']);
    expect((await stack.database.knex('projects').where({ id: project.id }).first('repro')).repro).toBe('https://git.devplein.test/team/game-jam.git');
    // A rejected request no longer appears in the awaiting list; an approved one in ?all=true.
    const all = await session.json<ProjectJson[]>('GET', '/api/admin/projects?all=true');
    expect(all.body.some((p) => p.name === 'game-jam')).toBe(true);
  });

  it("never approves a request for image option 1: 'Kies eerst een image.'", async () => {
    const project = await projectByName('eigen-server');
    const { status, body } = await (await as(ADMIN)).json<ErrorJson>('PUT', `/api/admin/projects/${project.id}`, {});
    expect(status).toBe(422);
    expect(body.errors?.docker_id).toEqual(['Kies eerst een image.']);
    expect((await projectByName('eigen-server')).validated).toBeNull();
  });

  it('per role: 401, 403 for not activated, students and developers; 404 unknown; 422 bad input', async () => {
    const project = await projectByName('bilal-webshop');
    const path = `/api/admin/projects/${project.id}`;
    expect((await (await anonymous()).json('PUT', path, {})).status).toBe(401);
    expect((await (await anonymous()).json('DELETE', path)).status).toBe(401);
    for (const email of [NOT_ACTIVATED, STUDENT, DEVELOPER]) {
      expect((await (await as(email)).json('PUT', path, {})).status, email).toBe(403);
      expect((await (await as(email)).json('DELETE', path)).status, email).toBe(403);
    }
    const admin = await as(ADMIN);
    expect((await admin.json('PUT', '/api/admin/projects/999999', {})).status).toBe(404);
    expect((await admin.json('DELETE', '/api/admin/projects/999999')).status).toBe(404);
    expect((await admin.json('PUT', '/api/admin/projects/x', {})).status).toBe(422);
    expect((await admin.json('PUT', path, { git: 'niet een git-adres' })).status).toBe(422);
    expect((await projectByName('bilal-webshop')).validated).toBeNull();
  });

  it('deletes a project for an admin, with an audit entry', async () => {
    const project = await projectByName('bilal-webshop');
    expect((await (await as(ADMIN)).json('DELETE', `/api/admin/projects/${project.id}`)).status).toBe(204);
    expect(await projectByName('bilal-webshop')).toBeUndefined();
    const audit = await stack.database.knex('audit_log').where({ action: 'project.delete', subject_id: String(project.id) }).first('before');
    const before = typeof audit.before === 'string' ? JSON.parse(audit.before) : audit.before;
    expect(before.name).toBe('bilal-webshop');
  });
});
