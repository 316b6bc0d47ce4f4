import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordAudit } from '../../../control-plane/src/audit/record-audit.ts';
import { createTestDatabase } from '../../support/services/database.ts';
import { createTestPglite } from '../../support/services/pglite.ts';
import { seededControlPlane } from '../../support/stacks/seeded-control-plane.ts';
import { auditFacets, readAudit, type AuditPageJson as AuditPage } from '@devplein/contract/http/admin-audit';
import { call } from '../../support/clients/endpoint-calls.ts';

/*
 * The audit trail: GET /api/admin/audit for every role, its filters and paging, no route that
 * changes an entry, the append-only table (PostgreSQL and PGlite), and the admin level routes
 * writing their entries in the same transaction as the change.
 */

type Role = 'anonymous' | 'nieuw' | 'student' | 'developer' | 'docent' | 'admin';
const accounts: Record<Exclude<Role, 'anonymous'>, string> = {
  nieuw: 'nieuw@devplein.test',
  student: 'student@devplein.test',
  developer: 'ontwikkelaar@devplein.test',
  docent: 'docent@devplein.test',
  admin: 'admin@devplein.test',
};
const ids = { admin: 0, docent: 0, student: 0, zonderklas: 0 };

/** Entries at fixed, distinct times (oldest first) so that "newest first" is checkable. */
async function seedEntries(knex: Knex): Promise<void> {
  const base = Date.parse('2026-01-01T10:00:00Z');
  const entries = [
    { actor: ids.docent, action: 'user.verify', subject: ids.student, after: { email_verified_at: '2026-01-01' } },
    { actor: ids.docent, action: 'user.disable', subject: ids.student, before: { disabled_at: null }, after: { disabled_at: '2026-01-02' } },
    { actor: ids.zonderklas, action: 'team.add-member', subject: 1, after: { user_id: ids.student } },
    { actor: ids.zonderklas, action: 'user.disable', subject: ids.zonderklas, after: { disabled_at: '2026-01-03' } },
    { actor: ids.docent, action: 'users.odd', subject: 9, after: { note: 'not a user.* action' } },
  ];
  // Inserted directly: recordAudit stamps now(), these need fixed times a minute apart.
  await knex('audit_log').insert(
    entries.map((entry, index) => ({
      actor_id: entry.actor,
      action: entry.action,
      subject_type: entry.action.startsWith('team') ? 'team' : 'user',
      subject_id: String(entry.subject),
      before: entry.before ? JSON.stringify(entry.before) : null,
      after: JSON.stringify(entry.after),
      created_at: new Date(base + index * 60_000),
    })),
  );
}

const stack = seededControlPlane({
  accounts,
  seed: async (knex) => {
    const byEmail = async (email: string) => (await knex('users').where({ email }).first<{ id: number }>('id')).id;
    ids.admin = await byEmail('admin@devplein.test');
    ids.docent = await byEmail('docent@devplein.test');
    ids.student = await byEmail('student@devplein.test');
    ids.zonderklas = await byEmail('zonderklas@devplein.test');
    await seedEntries(knex);
  },
});
const { sessions } = stack;

const list = (query = '', role: Role = 'admin') => sessions[role].json<AuditPage>('GET', `${readAudit.path}${query}`);

describe('GET /api/admin/audit per role', () => {
  const expected: Array<[Role, number]> = [
    ['anonymous', 401], ['nieuw', 403], ['student', 403], ['developer', 403], ['docent', 200], ['admin', 200],
  ];
  for (const [role, status] of expected) {
    it(`${role} → ${status}`, async () => {
      expect((await list('', role)).status).toBe(status);
      expect((await sessions[role].json('GET', auditFacets.path)).status).toBe(status);
    });
  }
});

describe('the list', () => {
  it('answers newest first with actor, action, subject and before/after', async () => {
    const { status, body } = await list('?kind=user');
    expect(status).toBe(200);
    expect(body).toMatchObject({ page: 1, per_page: 50, total: 3 });
    expect(body.data.map((entry) => entry.action)).toEqual(['user.disable', 'user.disable', 'user.verify']);
    const times = body.data.map((entry) => Date.parse(entry.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(body.data[1]).toMatchObject({
      actor: { id: ids.docent, name: expect.any(String) },
      action: 'user.disable',
      subject_type: 'user',
      subject_id: String(ids.student),
      subject_name: expect.any(String),
      before: { disabled_at: null },
      after: { disabled_at: '2026-01-02' },
    });
  });

  it('filters by actor, exact action, action prefix and subject', async () => {
    expect((await list(`?actor=${ids.zonderklas}`)).body.data.map((entry) => entry.action)).toEqual(['user.disable', 'team.add-member']);
    expect((await list('?kind=user.disable')).body.total).toBe(2);
    expect((await list(`?kind=user.disable&actor=${ids.docent}`)).body.total).toBe(1);
    // 'user' is a whole-segment prefix: 'users.odd' is not a user.* action.
    expect((await list('?kind=users')).body.data.map((entry) => entry.action)).toEqual(['users.odd']);
    expect((await list('?kind=team')).body.data).toHaveLength(1);
    expect((await list(`?subject_type=user&subject_id=${ids.student}`)).body.total).toBe(2);
    expect((await list('?kind=nothing.here')).body).toMatchObject({ data: [], total: 0 });
  });

  it('pages with page and per_page (total stays the same)', async () => {
    const first = await list('?kind=user&per_page=2');
    const second = await list('?kind=user&per_page=2&page=2');
    expect(first.body).toMatchObject({ page: 1, per_page: 2, total: 3 });
    expect(second.body).toMatchObject({ page: 2, per_page: 2, total: 3 });
    expect(first.body.data).toHaveLength(2);
    expect(second.body.data).toHaveLength(1);
    expect(new Set([...first.body.data, ...second.body.data].map((entry) => entry.id)).size).toBe(3);
    expect((await list('?kind=user&per_page=2&page=9')).body.data).toEqual([]);
    expect((await list('?per_page=200')).status).toBe(200);
  });

  it('answers the filter choices: actors and kinds in the log', async () => {
    const body = await call(sessions.docent, auditFacets, {});
    expect(body.actors.map((actor) => actor.id)).toEqual(expect.arrayContaining([ids.docent, ids.zonderklas]));
    expect(body.kinds).toEqual(expect.arrayContaining(['team', 'user', 'users']));
  });

  it('refuses bad paging and filters with 422 field errors', async () => {
    const cases: Array<[string, string]> = [
      ['?page=0', 'page'], ['?page=x', 'page'], ['?per_page=201', 'per_page'], ['?per_page=0', 'per_page'],
      ['?actor=abc', 'actor'], ['?kind=User;drop', 'kind'], ['?kind=.user', 'kind'], ['?subject_type=a%20b', 'subject_type'],
    ];
    for (const [query, field] of cases) {
      const { status, body } = await sessions.admin.json<{ errors: Record<string, string[]> }>('GET', `${readAudit.path}${query}`);
      expect(status, query).toBe(422);
      expect(Object.keys(body.errors), query).toContain(field);
    }
  });

  it('has no route that changes or deletes an entry', async () => {
    const entry = (await list()).body.data[0]!;
    for (const method of ['PUT', 'PATCH', 'DELETE', 'POST']) {
      const { status } = await sessions.admin.json(method, `/api/admin/audit/${entry.id}`, { action: 'x' });
      expect([404, 405], method).toContain(status);
    }
    const { status } = await sessions.admin.json('DELETE', '/api/admin/audit');
    expect([404, 405]).toContain(status);
    expect((await list()).body.data[0]).toEqual(entry);
  });
});

describe('admin level writes record entries', () => {
  const entriesOf = async (query: string) => (await list(query)).body;

  it('a status change → one level.status entry with before/after', async () => {
    const level = await stack.database.knex('levels').where({ user_id: ids.student }).orderBy('id').first<{ id: number; status: string }>('id', 'status');
    const next = level.status === 'success' ? 'open' : 'success';
    const before = (await entriesOf(`?kind=level.status&subject_type=level&subject_id=${level.id}`)).total;
    expect((await sessions.docent.json('POST', '/api/level/update-status', { level: level.id, status: next })).status).toBe(200);
    const after = await entriesOf(`?kind=level.status&subject_type=level&subject_id=${level.id}`);
    expect(after.total).toBe(before + 1);
    expect(after.data[0]).toMatchObject({
      actor: { id: ids.docent }, action: 'level.status', before: { status: level.status }, after: { status: next },
    });
    // Unknown level: 404 and nothing recorded.
    expect((await sessions.docent.json('POST', '/api/level/update-status', { level: 999_999, status: 'open' })).status).toBe(404);
    expect((await entriesOf('?kind=level.status&subject_id=999999')).total).toBe(0);
  });

  it('a content pick → level.content; bulk changes → level.bulk-status / level.bulk-content with the ids', async () => {
    const category = await stack.database.knex('level_categories').where({ title: 'Front-end' }).first<{ id: number; number: number }>('id', 'number');
    const content = await stack.database.knex('level_contents').where({ level_category_id: category.id }).orderBy('id').first<{ id: number }>('id');
    const store = await sessions.admin.json<{ id: number }>('POST', '/api/level/store', {
      number: category.number, content_id: content.id, category_id: category.id, user: ids.zonderklas,
    });
    expect(store.status).toBe(200);
    const picked = await entriesOf(`?kind=level.content&subject_id=${store.body.id}`);
    expect(picked.data[0]).toMatchObject({ actor: { id: ids.admin }, after: { level_content_id: content.id } });

    const students = [ids.student, ids.zonderklas];
    expect((await sessions.admin.json('POST', '/api/level/update/multiple', { level: 1, status: 'open', category_id: category.id, ids: students })).status).toBe(200);
    const bulk = (await entriesOf(`?kind=level.bulk-status&subject_type=level-category&subject_id=${category.id}`)).data[0]!;
    expect(bulk.after).toMatchObject({ number: 1, status: 'open', user_ids: students });
    expect((bulk.after!.level_ids as number[]).length).toBe(2);

    expect((await sessions.admin.json('POST', '/api/level/update/multiple', { level: 1, status: 'locked', category_id: category.id, content_id: content.id, ids: students })).status).toBe(200);
    const bulkContent = (await entriesOf('?kind=level.bulk-content')).data[0]!;
    expect(bulkContent.after).toMatchObject({ status: 'locked', level_content_id: content.id, user_ids: students });
    expect(bulkContent.before).toMatchObject({ number: 1 });
    expect((bulkContent.before!.levels as Array<{ status: string }>).map((row) => row.status)).toEqual(['open', 'open']);
  });

  it('category and content create/update → level-category.* and level-content.* entries', async () => {
    const created = await sessions.docent.json<{ id: number }>('POST', '/api/level/categories/store', { title: 'Audit', number: 2, icons: 0 });
    expect(created.status).toBe(201);
    expect((await sessions.docent.json('POST', `/api/level/categories/update/${created.body.id}`, { title: 'Audit 2', number: 3, icons: 1 })).status).toBe(200);
    const categoryEntries = (await entriesOf(`?kind=level-category&subject_id=${created.body.id}`)).data;
    expect(categoryEntries.map((entry) => entry.action)).toEqual(['level-category.update', 'level-category.create']);
    expect(categoryEntries[0]).toMatchObject({
      before: { title: 'Audit', number: 2, icons: false }, after: { title: 'Audit 2', number: 3, icons: true },
    });

    const content = await sessions.docent.json<{ id: number }>('POST', '/api/level/content/store', { title: 'Inhoud', title_for_teachers: null, level_categories_id: created.body.id });
    expect(content.status).toBe(201);
    expect((await sessions.docent.json('POST', `/api/level/content/update/${content.body.id}`, { title: 'Inhoud 2', title_for_teachers: 'Docent', level_categories_id: created.body.id })).status).toBe(200);
    const contentEntries = (await entriesOf(`?kind=level-content&subject_id=${content.body.id}`)).data;
    expect(contentEntries.map((entry) => entry.action)).toEqual(['level-content.update', 'level-content.create']);
    expect(contentEntries[0]).toMatchObject({ before: { title: 'Inhoud' }, after: { title: 'Inhoud 2', title_for_teachers: 'Docent' } });
  });

  it('a refused write (422) records nothing', async () => {
    const total = (await entriesOf('')).total;
    expect((await sessions.admin.json('POST', '/api/level/categories/store', { title: '', number: 0 })).status).toBe(422);
    expect((await entriesOf('')).total).toBe(total);
  });
});

/** The table itself refuses changes: the same checks on both drivers. */
function appendOnlySuite(driver: string, open: () => Promise<{ knex: Knex; close(): Promise<void> }>): void {
  describe(`audit_log is append-only on ${driver}`, { timeout: 60_000 }, () => {
    let knex: Knex;
    let close: () => Promise<void>;
    let entryId: number;
    let actorId: number;

    beforeAll(async () => {
      ({ knex, close } = await open());
      const [actor] = await knex('users').insert({ name: 'Auditor', name_slug: 'auditor', email: 'auditor@devplein.test' }).returning<Array<{ id: number }>>('id');
      actorId = actor!.id;
      await recordAudit(knex, { actorId, action: 'user.verify', subjectType: 'user', subjectId: actorId, after: { ok: true } });
      entryId = (await knex('audit_log').max<{ max: number }>('id as max').first())!.max;
    });
    afterAll(async () => close?.());

    it('refuses UPDATE, DELETE and TRUNCATE', async () => {
      await expect(knex('audit_log').where({ id: entryId }).update({ action: 'user.delete' })).rejects.toThrow(/append-only/);
      await expect(knex('audit_log').where({ id: entryId }).update({ after: JSON.stringify({ ok: false }) })).rejects.toThrow(/append-only/);
      await expect(knex.raw('update audit_log set created_at = now() - interval \'1 year\'')).rejects.toThrow(/append-only/);
      await expect(knex('audit_log').where({ id: entryId }).delete()).rejects.toThrow(/append-only/);
      await expect(knex.raw('truncate audit_log')).rejects.toThrow(/append-only/);
      // Clearing the actor of a user who still exists is tampering too.
      await expect(knex('audit_log').where({ id: entryId }).update({ actor_id: null })).rejects.toThrow(/append-only/);
      expect(await knex('audit_log').where({ id: entryId }).first()).toMatchObject({ actor_id: actorId, action: 'user.verify', after: { ok: true } });
    });

    it('still lets a user be deleted: the foreign key clears actor_id, the entry stays', async () => {
      await knex('users').where({ id: actorId }).delete();
      expect(await knex('audit_log').where({ id: entryId }).first()).toMatchObject({ actor_id: null, action: 'user.verify', after: { ok: true } });
    });
  });
}

appendOnlySuite('PostgreSQL', async () => {
  const db = await createTestDatabase();
  return { knex: db.knex, close: () => db.destroy() };
});

appendOnlySuite('PGlite', () => createTestPglite('audit'));
