import { describe, expect, it } from 'vitest';
import { seededControlPlane } from '../../support/stacks/seeded-control-plane.ts';
import { signedInSessions } from '../../support/clients/http-session.ts';
import type { MemberJson as Member, TeamSummaryJson } from '@devplein/contract/users';
import type { ErrorJson } from '@devplein/contract/http/errors';

const stack = seededControlPlane();

/** One session per account, reused; null is the anonymous visitor. */
const as = signedInSessions(() => stack.app.url);

const userId = async (where: Record<string, string>): Promise<number> =>
  (await stack.database.knex('users').where(where).first<{ id: number }>('id')).id;
const teamId = async (name: string): Promise<number> => (await stack.database.knex('teams').where({ name }).first<{ id: number }>('id')).id;
const auditOf = (action: string) => stack.database.knex('audit_log').where({ action }).orderBy('id', 'desc');

type Call = { name: string; method: string; path: () => Promise<string>; body?: () => Promise<unknown>; ok: number };

const calls: Call[] = [
  { name: 'GET /api/admin/teams', method: 'GET', path: async () => '/api/admin/teams', ok: 200 },
  { name: 'GET /api/admin/teams/{id}', method: 'GET', path: async () => `/api/admin/teams/${await teamId('Webteam')}`, ok: 200 },
  {
    name: 'PUT /api/admin/teams/{id}',
    method: 'PUT',
    path: async () => `/api/admin/teams/${await teamId('Webteam')}`,
    body: async () => ({ user: await userId({ name: 'Mila Kok' }) }),
    ok: 200,
  },
  { name: 'POST /api/admin/teams', method: 'POST', path: async () => '/api/admin/teams', body: async () => ({ name: `Team ${Math.random()}` }), ok: 201 },
];

describe('teams and groups API: who may', () => {
  const roles: Array<[string, string | null, number]> = [
    ['anonymous', null, 401],
    ['not activated', 'nieuw@devplein.test', 403],
    ['student', 'student@devplein.test', 403],
    ['developer', 'ontwikkelaar@devplein.test', 403],
  ];
  for (const call of calls) {
    it(`${call.name}: 401/403 for anonymous, nieuw, student, developer; ok for docent and admin`, async () => {
      for (const [role, email, status] of roles) {
        const answer = await (await as(email)).json('' + call.method, await call.path(), call.body ? await call.body() : undefined);
        expect(answer.status, `${role} ${call.name}`).toBe(status);
      }
      for (const email of ['docent@devplein.test', 'admin@devplein.test']) {
        const answer = await (await as(email)).json(call.method, await call.path(), call.body ? await call.body() : undefined);
        expect(answer.status, `${email} ${call.name}`).toBe(call.ok);
      }
    });
  }
});

describe('teams', () => {
  it('lists teams with member counts, and one team’s members with their cohort', async () => {
    const admin = await as('admin@devplein.test');
    const list = await admin.json<TeamSummaryJson[]>('GET', '/api/admin/teams');
    expect(list.status).toBe(200);
    expect(list.body[0]).toEqual({ id: 1, name: 'Beheer', member_count: 4 });
    const members = await admin.json<Member[]>('GET', '/api/admin/teams/1');
    expect(members.body.map((m) => m.name)).toEqual(['Anna Admin', 'Dirk Docent', 'Finn Dijkstra', 'Jesse de Groot']);
    expect(members.body.find((m) => m.name === 'Finn Dijkstra')?.group?.cohort).toBe('SD22');
  });

  it('toggles membership with PUT and records both directions in the audit log', async () => {
    const admin = await as('admin@devplein.test');
    const team = await teamId('Open dag 2025');
    const hidde = await userId({ name: 'Hidde Koster' });
    const added = await admin.json<Member[]>('PUT', `/api/admin/teams/${team}`, { user: hidde });
    expect(added.status).toBe(200);
    expect(added.body.map((m) => m.name)).toContain('Hidde Koster');
    expect((await auditOf('team.add-member').first()).subject_id).toBe(String(team));
    const removed = await admin.json<Member[]>('PUT', `/api/admin/teams/${team}`, { user: String(hidde) });
    expect(removed.status).toBe(200);
    expect(removed.body.map((m) => m.name)).not.toContain('Hidde Koster');
    expect(removed.body).toHaveLength(4);
    const audit = await auditOf('team.remove-member').first();
    expect(audit).toMatchObject({ subject_type: 'team', subject_id: String(team), actor_id: await userId({ email: 'admin@devplein.test' }) });
    expect(audit.after).toMatchObject({ member: false, user_id: hidde });
  });

  it('answers 404 for an unknown team and 422 for a bad or unknown user', async () => {
    const admin = await as('admin@devplein.test');
    expect((await admin.json('GET', '/api/admin/teams/99999')).status).toBe(404);
    expect((await admin.json('PUT', '/api/admin/teams/99999', { user: 4 })).status).toBe(404);
    expect((await admin.json('GET', '/api/admin/teams/abc')).status).toBe(422);
    for (const body of [{}, { user: 'x' }, { user: -1 }, { user: 99999 }, { user: 1.5 }]) {
      const answer = await admin.json<ErrorJson>('PUT', '/api/admin/teams/1', body);
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(answer.body.errors ?? {})).toEqual(['user']);
    }
  });

  it('creates a team with a valid, unique name', async () => {
    const admin = await as('admin@devplein.test');
    const created = await admin.json<TeamSummaryJson>('POST', '/api/admin/teams', { name: '  Examencommissie ' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Examencommissie', member_count: 0 });
    expect((await auditOf('team.create').first()).subject_id).toBe(String(created.body.id));
    for (const body of [{}, { name: '' }, { name: '   ' }, { name: 'x'.repeat(61) }, { name: 'examencommissie' }, { name: 42 }]) {
      const answer = await admin.json<ErrorJson>('POST', '/api/admin/teams', body);
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(answer.body.errors ?? {})).toEqual(['name']);
    }
    expect((await admin.json('POST', '/api/admin/teams', { name: 'x'.repeat(60) })).status).toBe(201);
  });
});
