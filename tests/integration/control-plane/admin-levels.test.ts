import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { seededControlPlane } from '../../support/stacks/seeded-control-plane.ts';
import type { HttpSession } from '../../support/clients/http-session.ts';
import { MAX_COURSE_FILE_BYTES } from '@devplein/contract/levels';

/*
 * The teachers' level tools through the real control plane: every route for every role, bad
 * input (422, never 500), unknown ids (404), the bulk and single-cell level changes, and course
 * file uploads with their size and type limits.
 */

type Role = 'anonymous' | 'nieuw' | 'student' | 'developer' | 'docent' | 'admin';
const accounts: Record<Exclude<Role, 'anonymous'>, string> = {
  nieuw: 'nieuw@devplein.test',
  student: 'student@devplein.test',
  developer: 'ontwikkelaar@devplein.test',
  docent: 'docent@devplein.test',
  admin: 'admin@devplein.test',
};

/** Seed facts looked up by name, so the test does not depend on insertion order. */
const seed = { sd22: 0, sd23: 0, frontEnd: 0, frontEndNumber: 0, otherCategory: 0, frontEndContent: 0, otherContent: 0 };

const stack = seededControlPlane({
  accounts,
  seed: async (knex) => {
    seed.sd22 = (await knex('groups').where({ cohort: 'SD22' }).first('id')).id;
    seed.sd23 = (await knex('groups').where({ cohort: 'SD23' }).first('id')).id;
    const frontEnd = await knex('level_categories').where({ title: 'Front-end' }).first('id', 'number');
    seed.frontEnd = frontEnd.id;
    seed.frontEndNumber = frontEnd.number;
    seed.otherCategory = (await knex('level_categories').whereNot({ id: seed.frontEnd }).orderBy('id').first('id')).id;
    seed.frontEndContent = (await knex('level_contents').where({ level_category_id: seed.frontEnd }).orderBy('id').first('id')).id;
    seed.otherContent = (await knex('level_contents').where({ level_category_id: seed.otherCategory }).orderBy('id').first('id')).id;
  },
});
const { sessions } = stack;

const userId = async (email: string): Promise<number> =>
  (await stack.database.knex('users').where({ email }).first<{ id: number }>('id')).id;

/** A fresh level content with one course holding one text and one file: what the course routes act on. */
async function courseFixture(): Promise<{ contentId: number; courseId: number; textId: number; fileId: number }> {
  const knex = stack.database.knex;
  const [content] = await knex('level_contents')
    .insert({ title: 'Fixture', title_for_teachers: 'Fixture (docent)', level_category_id: seed.frontEnd })
    .returning('id');
  const [course] = await knex('courses').insert({ level_content_id: content.id, title: 'Cursus', position: 0 }).returning('id');
  const [text] = await knex('course_texts').insert({ course_id: course.id, title: 'Tekst', body: '# Hallo', position: 0 }).returning('id');
  const [file] = await knex('course_files')
    .insert({
      course_id: course.id,
      title: 'Bestand',
      type: 'PDF',
      filename: 'a.pdf',
      storage_key: `fixture${Math.random().toString(36).slice(2)}`,
      size: 3,
      position: 0,
    })
    .returning('id');
  return { contentId: content.id, courseId: course.id, textId: text.id, fileId: file.id };
}

/** A raw-body upload as the content edit page sends it. */
function upload(session: HttpSession, courseId: number, query: Record<string, string>, bytes: Uint8Array, contentType = 'application/octet-stream') {
  const token = session.cookie('XSRF-TOKEN');
  const headers: Record<string, string> = {
    'X-Requested-With': 'XMLHttpRequest',
    Accept: 'application/json',
    'Content-Type': contentType,
  };
  if (token) headers['X-CSRF-TOKEN'] = decodeURIComponent(token);
  return session.raw(`/api/level/courses/${courseId}/files?${new URLSearchParams(query)}`, {
    method: 'POST',
    headers,
    body: new Uint8Array(bytes),
  });
}

interface RouteCase {
  name: string;
  /** Sends the request as `session`; fixtures are made fresh per call. */
  send: (session: HttpSession) => Promise<{ status: number; body: unknown }>;
  okStatus: number;
}

type Lazy<T> = T | (() => Promise<T> | T);
const resolve = async <T,>(value: Lazy<T>): Promise<T> => (typeof value === 'function' ? (value as () => Promise<T> | T)() : value);

const json =
  (method: string, pathOf: Lazy<string>, body?: Lazy<unknown>) =>
  async (session: HttpSession) =>
    session.json(method, await resolve(pathOf), body === undefined ? undefined : await resolve(body));

const routeCases: RouteCase[] = [
  { name: 'GET /api/admin/level/categories', send: json('GET', '/api/admin/level/categories'), okStatus: 200 },
  { name: 'GET /api/level/categories/show/{id}', send: json('GET', () => `/api/level/categories/show/${seed.frontEnd}`), okStatus: 200 },
  {
    name: 'POST /api/level/categories/store',
    send: json('POST', '/api/level/categories/store', { title: 'Rollen', number: 3, icons: 1 }),
    okStatus: 201,
  },
  {
    name: 'POST /api/level/categories/update/{id}',
    send: json(
      'POST',
      async () => `/api/level/categories/update/${(await stack.database.knex('level_categories').insert({ title: 'X', number: 2, icons: false }).returning('id'))[0].id}`,
      { title: 'Bijgewerkt', number: 4, icons: false },
    ),
    okStatus: 200,
  },
  { name: 'GET /api/level/content/index', send: json('GET', '/api/level/content/index'), okStatus: 200 },
  {
    name: 'GET /api/level/content/index-by-category/{id}',
    send: json('GET', () => `/api/level/content/index-by-category/${seed.frontEnd}`),
    okStatus: 200,
  },
  { name: 'GET /api/level/content/show/{id}', send: json('GET', () => `/api/level/content/show/${seed.frontEndContent}`), okStatus: 200 },
  {
    name: 'POST /api/level/content/store',
    send: json('POST', '/api/level/content/store', () => ({ title: 'Nieuw', title_for_teachers: 'Nieuw (docent)', level_categories_id: seed.frontEnd })),
    okStatus: 201,
  },
  {
    name: 'POST /api/level/content/update/{id}',
    send: json('POST', async () => `/api/level/content/update/${(await courseFixture()).contentId}`, () => ({
      title: 'Anders',
      title_for_teachers: null,
      level_categories_id: seed.frontEnd,
    })),
    okStatus: 200,
  },
  { name: 'GET /api/level/content/{id}/courses', send: json('GET', async () => `/api/level/content/${(await courseFixture()).contentId}/courses`), okStatus: 200 },
  {
    name: 'POST /api/level/content/{id}/courses',
    send: json('POST', async () => `/api/level/content/${(await courseFixture()).contentId}/courses`, { title: 'Tweede cursus' }),
    okStatus: 201,
  },
  { name: 'PUT /api/level/courses/{id}', send: json('PUT', async () => `/api/level/courses/${(await courseFixture()).courseId}`, { title: 'Hernoemd' }), okStatus: 200 },
  { name: 'DELETE /api/level/courses/{id}', send: json('DELETE', async () => `/api/level/courses/${(await courseFixture()).courseId}`), okStatus: 204 },
  {
    name: 'POST /api/level/courses/{id}/move',
    send: json('POST', async () => `/api/level/courses/${(await courseFixture()).courseId}/move`, { direction: 'down' }),
    okStatus: 200,
  },
  {
    name: 'POST /api/level/courses/{id}/texts',
    send: json('POST', async () => `/api/level/courses/${(await courseFixture()).courseId}/texts`, { title: 'Uitleg', body: '**vet**' }),
    okStatus: 201,
  },
  {
    name: 'PUT /api/level/courses/{id}/texts/{textId}',
    send: json('PUT', async () => {
      const f = await courseFixture();
      return `/api/level/courses/${f.courseId}/texts/${f.textId}`;
    }, { title: 'Uitleg 2', body: 'tekst' }),
    okStatus: 200,
  },
  {
    name: 'DELETE /api/level/courses/{id}/texts/{textId}',
    send: json('DELETE', async () => {
      const f = await courseFixture();
      return `/api/level/courses/${f.courseId}/texts/${f.textId}`;
    }),
    okStatus: 204,
  },
  {
    name: 'POST /api/level/courses/{id}/texts/{textId}/move',
    send: json('POST', async () => {
      const f = await courseFixture();
      return `/api/level/courses/${f.courseId}/texts/${f.textId}/move`;
    }, { direction: 'up' }),
    okStatus: 200,
  },
  {
    name: 'POST /api/level/courses/{id}/files',
    send: async (session) => {
      const response = await upload(session, (await courseFixture()).courseId, { title: 'Opdracht', filename: 'opdracht.txt' }, Buffer.from('hallo'));
      return { status: response.status, body: await response.json() };
    },
    okStatus: 201,
  },
  {
    name: 'PUT /api/level/courses/{id}/files/{fileId}',
    send: json('PUT', async () => {
      const f = await courseFixture();
      return `/api/level/courses/${f.courseId}/files/${f.fileId}`;
    }, { title: 'Nieuwe titel' }),
    okStatus: 200,
  },
  {
    name: 'DELETE /api/level/courses/{id}/files/{fileId}',
    send: json('DELETE', async () => {
      const f = await courseFixture();
      return `/api/level/courses/${f.courseId}/files/${f.fileId}`;
    }),
    okStatus: 204,
  },
  {
    name: 'POST /api/level/courses/{id}/files/{fileId}/move',
    send: json('POST', async () => {
      const f = await courseFixture();
      return `/api/level/courses/${f.courseId}/files/${f.fileId}/move`;
    }, { direction: 'down' }),
    okStatus: 200,
  },
  { name: 'GET /api/admin/groups?search=SD', send: json('GET', '/api/admin/groups?search=SD'), okStatus: 200 },
  { name: 'GET /api/users/by-group/{groupId}', send: json('GET', () => `/api/users/by-group/${seed.sd22}`), okStatus: 200 },
  {
    name: 'POST /api/level/update/multiple',
    send: json('POST', '/api/level/update/multiple', async () => ({
      level: 1,
      status: 'open',
      category_id: seed.frontEnd,
      ids: [await userId('ontwikkelaar@devplein.test')],
    })),
    okStatus: 200,
  },
  {
    name: 'POST /api/level/update-status',
    send: json('POST', '/api/level/update-status', async () => ({
      level: (await stack.database.knex('levels').where({ user_id: await userId('student@devplein.test') }).first('id')).id,
      status: 'success',
    })),
    okStatus: 200,
  },
  {
    name: 'POST /api/level/store',
    send: json('POST', '/api/level/store', async () => ({
      level: seed.frontEndNumber,
      number: seed.frontEndNumber,
      content_id: seed.frontEndContent,
      category_id: seed.frontEnd,
      user: await userId('student@devplein.test'),
    })),
    okStatus: 200,
  },
];

const refusals: Array<[Role, number]> = [
  ['anonymous', 401],
  ['nieuw', 403],
  ['student', 403],
  ['developer', 403],
];

describe('every admin level route, per role', () => {
  for (const route of routeCases) {
    it(`${route.name}: anonymous 401, not activated/student/developer 403, docent and admin ${route.okStatus}`, async () => {
      for (const [role, status] of refusals) {
        const answer = await route.send(sessions[role]);
        expect(answer.status, `${role} on ${route.name}: ${JSON.stringify(answer.body)}`).toBe(status);
        if (role === 'nieuw') expect((answer.body as { reason?: string }).reason).toBe('not_verified');
      }
      for (const role of ['docent', 'admin'] as const) {
        const answer = await route.send(sessions[role]);
        expect(answer.status, `${role} on ${route.name}: ${JSON.stringify(answer.body)}`).toBe(route.okStatus);
      }
    });
  }
});

describe('bad input answers 422 with field errors, unknown ids 404', () => {
  const cases: Array<{ name: string; method: string; path: () => string; body?: () => unknown; fields: string[] }> = [
    { name: 'category without title, number 0', method: 'POST', path: () => '/api/level/categories/store', body: () => ({ title: '', number: 0, icons: 1 }), fields: ['title', 'number'] },
    { name: 'category number 51, icons 2', method: 'POST', path: () => '/api/level/categories/store', body: () => ({ title: 'x', number: 51, icons: 2 }), fields: ['number', 'icons'] },
    { name: 'category title of 101 chars', method: 'POST', path: () => `/api/level/categories/update/${seed.frontEnd}`, body: () => ({ title: 'a'.repeat(101), number: 1.5 }), fields: ['title', 'number'] },
    { name: 'category body not an object', method: 'POST', path: () => '/api/level/categories/store', body: () => [1, 2], fields: ['body'] },
    { name: 'content without title or category', method: 'POST', path: () => '/api/level/content/store', body: () => ({ title: ' ' }), fields: ['title', 'level_categories_id'] },
    { name: 'content with unknown category', method: 'POST', path: () => '/api/level/content/store', body: () => ({ title: 'a', level_categories_id: 999999 }), fields: ['level_categories_id'] },
    { name: 'non-numeric id', method: 'GET', path: () => '/api/level/categories/show/abc', fields: ['id'] },
    { name: 'bulk without anything', method: 'POST', path: () => '/api/level/update/multiple', body: () => ({}), fields: ['level', 'status', 'category_id', 'ids'] },
    { name: 'bulk with no students', method: 'POST', path: () => '/api/level/update/multiple', body: () => ({ level: 1, status: 'open', category_id: seed.frontEnd, ids: [] }), fields: ['ids'] },
    { name: 'bulk with unknown status', method: 'POST', path: () => '/api/level/update/multiple', body: () => ({ level: 1, status: 'done', category_id: seed.frontEnd, ids: [1] }), fields: ['status'] },
    { name: 'bulk level beyond the category', method: 'POST', path: () => '/api/level/update/multiple', body: () => ({ level: 99, status: 'open', category_id: seed.frontEnd, ids: [1] }), fields: ['level'] },
    { name: 'bulk content of another category', method: 'POST', path: () => '/api/level/update/multiple', body: () => ({ level: 1, status: 'open', category_id: seed.frontEnd, content_id: seed.otherContent, ids: [1] }), fields: ['content_id'] },
    { name: 'bulk unknown student and category', method: 'POST', path: () => '/api/level/update/multiple', body: () => ({ level: 1, status: 'open', category_id: 999999, ids: [999999] }), fields: ['category_id', 'ids'] },
    { name: 'update-status with bad status', method: 'POST', path: () => '/api/level/update-status', body: () => ({ level: 1, status: 'gehaald' }), fields: ['status'] },
    { name: 'store without user and number', method: 'POST', path: () => '/api/level/store', body: () => ({ content_id: 1, category_id: 1 }), fields: ['number', 'user'] },
    { name: 'store with unknown user', method: 'POST', path: () => '/api/level/store', body: () => ({ number: 1, content_id: seed.frontEndContent, category_id: seed.frontEnd, user: 999999 }), fields: ['user'] },
    { name: 'store with level ≠ number', method: 'POST', path: () => '/api/level/store', body: () => ({ level: 2, number: 1, content_id: seed.frontEndContent, category_id: seed.frontEnd, user: 1 }), fields: ['level'] },
    // Both used to reach PostgreSQL and answer 500 (found by tests/property).
    { name: 'category title with a NUL character', method: 'POST', path: () => '/api/level/categories/store', body: () => ({ title: 'a\u0000b', number: 1 }), fields: ['title'] },
    { name: 'course title with an unpaired surrogate', method: 'POST', path: () => `/api/level/content/${seed.frontEndContent}/courses`, body: () => ({ title: 'x\udfff' }), fields: ['title'] },
    { name: 'course without title', method: 'POST', path: () => `/api/level/content/${seed.frontEndContent}/courses`, body: () => ({ title: '' }), fields: ['title'] },
    { name: 'move in a bad direction', method: 'POST', path: () => '/api/level/courses/1/move', body: () => ({ direction: 'left' }), fields: ['direction'] },
    { name: 'group search too long', method: 'GET', path: () => `/api/admin/groups?search=${'x'.repeat(51)}`, fields: ['search'] },
  ];
  for (const testCase of cases) {
    it(testCase.name, async () => {
      const answer = await sessions.admin.json<{ message: string; errors: Record<string, string[]> }>(testCase.method, testCase.path(), testCase.body?.());
      expect(answer.status, JSON.stringify(answer.body)).toBe(422);
      expect(Object.keys(answer.body.errors).sort()).toEqual([...testCase.fields].sort());
    });
  }

  it('uses the exact alert texts of spec §5 for missing bulk fields and students', async () => {
    const answer = await sessions.admin.json<{ errors: Record<string, string[]> }>('POST', '/api/level/update/multiple', { ids: [] });
    expect(answer.body.errors.level).toEqual(['Niet alle velden zijn ingevuld']);
    expect(answer.body.errors.status).toEqual(['Niet alle velden zijn ingevuld']);
    expect(answer.body.errors.ids).toEqual(['Je hebt geen studenten geselecteerd']);
  });

  const unknown: Array<[string, string, unknown?]> = [
    ['GET', '/api/level/categories/show/999999'],
    ['POST', '/api/level/categories/update/999999', { title: 'a', number: 1, icons: 0 }],
    ['GET', '/api/level/content/show/999999'],
    ['GET', '/api/level/content/index-by-category/999999'],
    ['POST', '/api/level/content/update/999999', { title: 'a', level_categories_id: 1 }],
    ['GET', '/api/level/content/999999/courses'],
    ['POST', '/api/level/content/999999/courses', { title: 'a' }],
    ['PUT', '/api/level/courses/999999', { title: 'a' }],
    ['DELETE', '/api/level/courses/999999'],
    ['POST', '/api/level/courses/999999/move', { direction: 'up' }],
    ['POST', '/api/level/courses/999999/texts', { title: 'a', body: '' }],
    ['PUT', '/api/level/courses/999999/texts/1', { title: 'a', body: '' }],
    ['DELETE', '/api/level/courses/999999/files/1'],
    ['GET', '/api/users/by-group/999999'],
    ['POST', '/api/level/update-status', { level: 999999, status: 'open' }],
  ];
  for (const [method, requestPath, body] of unknown) {
    it(`${method} ${requestPath} → 404`, async () => {
      const answer = await sessions.docent.json(method, requestPath, body);
      expect(answer.status, JSON.stringify(answer.body)).toBe(404);
    });
  }

  it('answers 404 for a text or file that belongs to another course', async () => {
    const a = await courseFixture();
    const b = await courseFixture();
    expect((await sessions.admin.json('PUT', `/api/level/courses/${b.courseId}/texts/${a.textId}`, { title: 'x', body: '' })).status).toBe(404);
    expect((await sessions.admin.json('DELETE', `/api/level/courses/${b.courseId}/files/${a.fileId}`)).status).toBe(404);
  });
});

describe('categories and content', () => {
  it('stores, shows and updates a category; the list has it with icons as 0/1', async () => {
    const created = await sessions.docent.json<{ id: number; title: string; number: number; icons: number }>('POST', '/api/level/categories/store', {
      title: '  Databases  ',
      number: 6,
      icons: true,
    });
    expect(created.body).toMatchObject({ title: 'Databases', number: 6, icons: 1 });
    const updated = await sessions.docent.json('POST', `/api/level/categories/update/${created.body.id}`, { title: 'SQL', number: 7, icons: 0 });
    expect(updated.body).toEqual({ id: created.body.id, title: 'SQL', number: 7, icons: 0 });
    expect((await sessions.docent.json('GET', `/api/level/categories/show/${created.body.id}`)).body).toEqual(updated.body);
    const list = await sessions.docent.json<Array<{ id: number }>>('GET', '/api/admin/level/categories');
    expect(list.body.find((category) => category.id === created.body.id)).toEqual(updated.body);
    // The number-16 category keeps its stored number here (the §9 rule is for students only).
    expect(list.body).toContainEqual(expect.objectContaining({ number: 16 }));
  });

  it('stores and updates content; lists carry category_title and level_categories_id', async () => {
    const created = await sessions.admin.json<{ id: number }>('POST', '/api/level/content/store', {
      title: 'Flexbox',
      title_for_teachers: 'FE3 Flexbox',
      level_categories_id: seed.frontEnd,
    });
    expect(created.status).toBe(201);
    const all = await sessions.admin.json<Array<Record<string, unknown>>>('GET', '/api/level/content/index');
    expect(all.body.find((item) => item.id === created.body.id)).toEqual({
      id: created.body.id,
      title: 'Flexbox',
      title_for_teachers: 'FE3 Flexbox',
      level_categories_id: seed.frontEnd,
      category_title: 'Front-end',
    });
    const byCategory = await sessions.admin.json<Array<{ level_categories_id: number }>>('GET', `/api/level/content/index-by-category/${seed.otherCategory}`);
    expect(byCategory.body.length).toBeGreaterThan(0);
    expect(byCategory.body.every((item) => item.level_categories_id === seed.otherCategory)).toBe(true);

    // A level that shows this content loses it when the content moves to another category.
    const student = await userId('student@devplein.test');
    const level = await stack.database.knex('levels').where({ user_id: student, level_category_id: seed.frontEnd }).orderBy('number').first('id');
    await stack.database.knex('levels').where({ id: level.id }).update({ level_content_id: created.body.id });
    const moved = await sessions.admin.json('POST', `/api/level/content/update/${created.body.id}`, {
      title: 'Flexbox',
      title_for_teachers: '',
      level_categories_id: seed.otherCategory,
    });
    expect(moved.body).toMatchObject({ title_for_teachers: null, level_categories_id: seed.otherCategory });
    expect((await stack.database.knex('levels').where({ id: level.id }).first('level_content_id')).level_content_id).toBeNull();
  });
});

describe('levels per student', () => {
  it('lists the groups for the selector by cohort, filtered by the search term', async () => {
    const all = await sessions.admin.json<Array<{ id: number; cohort: string }>>('GET', '/api/admin/groups?search=SD');
    expect(all.body.map((group) => group.cohort)).toEqual(['SD20', 'SD21', 'SD22', 'SD23']);
    const one = await sessions.admin.json<Array<{ cohort: string }>>('GET', '/api/admin/groups?search=22');
    expect(one.body).toEqual([{ id: seed.sd22, cohort: 'SD22' }]);
    expect((await sessions.admin.json<unknown[]>('GET', '/api/admin/groups?search=%25')).body).toEqual([]);
  });

  it('answers one group with its students and all their levels in one response', async () => {
    const answer = await sessions.docent.json<Array<{ id: number; name: string; email: string; levels: Array<Record<string, unknown>> }>>(
      'GET',
      `/api/users/by-group/${seed.sd23}`,
    );
    expect(answer.status).toBe(200);
    const names = answer.body.map((user) => user.name);
    expect(names).toContain('Sam Student');
    // Users named 'import' come with their e-mail address: the table shows that instead.
    expect(answer.body.find((user) => user.name === 'import')?.email).toBe('r.dekker@student.devplein.test');
    const sam = answer.body.find((user) => user.name === 'Sam Student')!;
    const stored = await stack.database.knex('levels').where({ user_id: sam.id }).count<Array<{ count: string }>>('* as count');
    expect(sam.levels).toHaveLength(Number(stored[0]!.count));
    expect(Object.keys(sam.levels[0]!).sort()).toEqual(['id', 'level_category_id', 'level_content_id', 'number', 'status', 'user_id']);
  });

  it('bulk status change touches exactly the ticked students (and creates missing records)', async () => {
    const knex = stack.database.knex;
    const students = await knex('users').where({ group_id: seed.sd22 }).whereNull('disabled_at').orderBy('id').pluck<number[]>('id');
    const ticked = students.slice(0, 3);
    const untouched = students.slice(3);
    const level = seed.frontEndNumber; // the last level: most students have no record there yet
    const before = await knex('levels').where({ level_category_id: seed.frontEnd, number: level }).whereIn('user_id', untouched).select('user_id', 'status');
    const answer = await sessions.docent.json<{ updated: number }>('POST', '/api/level/update/multiple', {
      level,
      status: 'success',
      category_id: seed.frontEnd,
      ids: ticked,
    });
    expect(answer.status).toBe(200);
    expect(answer.body.updated).toBe(3);
    const after = await knex('levels').where({ level_category_id: seed.frontEnd, number: level }).select('user_id', 'status', 'level_content_id');
    expect(after.filter((row) => ticked.includes(row.user_id)).map((row) => row.status)).toEqual(['success', 'success', 'success']);
    expect(after.filter((row) => untouched.includes(row.user_id)).sort((a, b) => a.user_id - b.user_id)).toEqual(
      before.sort((a, b) => a.user_id - b.user_id).map((row) => ({ ...row, level_content_id: expect.anything() })),
    );
  });

  it('bulk content change sets content and status, and leaves other levels alone', async () => {
    const knex = stack.database.knex;
    const ids = [await userId('ontwikkelaar@devplein.test')];
    const other = await knex('levels').where({ user_id: ids[0], level_category_id: seed.frontEnd, number: 2 }).first();
    const answer = await sessions.admin.json('POST', '/api/level/update/multiple', {
      level: 1,
      status: 'locked',
      category_id: seed.frontEnd,
      content_id: seed.frontEndContent,
      ids,
    });
    expect(answer.status).toBe(200);
    const row = await knex('levels').where({ user_id: ids[0], level_category_id: seed.frontEnd, number: 1 }).first();
    expect(row).toMatchObject({ status: 'locked', level_content_id: seed.frontEndContent });
    expect(await knex('levels').where({ id: other.id }).first()).toEqual(other);
  });

  it('update-status changes one level and returns its status', async () => {
    const level = await stack.database.knex('levels').where({ user_id: await userId('student@devplein.test') }).orderBy('id').first('id');
    const answer = await sessions.admin.json('POST', '/api/level/update-status', { level: level.id, status: 'open' });
    expect(answer).toEqual({ status: 200, body: { status: 'open' } });
    expect((await stack.database.knex('levels').where({ id: level.id }).first('status')).status).toBe('open');
  });

  it('store creates a locked record for an empty cell, then only changes its content', async () => {
    const knex = stack.database.knex;
    const user = await userId('zonderklas@devplein.test');
    expect(await knex('levels').where({ user_id: user }).first()).toBeUndefined();
    const created = await sessions.admin.json<{ id: number; status: string; level_content_id: number }>('POST', '/api/level/store', {
      level: 4,
      content_id: seed.frontEndContent,
      category_id: seed.frontEnd,
      number: 4,
      user,
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ status: 'locked', level_content_id: seed.frontEndContent, id: expect.any(Number) });
    expect(await knex('levels').where({ id: created.body.id }).first()).toMatchObject({
      user_id: user,
      level_category_id: seed.frontEnd,
      number: 4,
      status: 'locked',
    });
    await knex('levels').where({ id: created.body.id }).update({ status: 'success' });
    const second = await (await knex('level_contents').where({ level_category_id: seed.frontEnd }).orderBy('id', 'desc').first('id')).id;
    const again = await sessions.admin.json('POST', '/api/level/store', { level: null, content_id: second, category_id: seed.frontEnd, number: 4, user });
    expect(again.body).toEqual({ status: 'success', level_content_id: second, id: created.body.id });
    // Clearing content is allowed on an existing record, not as a way to make an empty one.
    expect((await sessions.admin.json('POST', '/api/level/store', { content_id: null, category_id: seed.frontEnd, number: 4, user })).status).toBe(200);
    const empty = await sessions.admin.json<{ errors: Record<string, string[]> }>('POST', '/api/level/store', {
      content_id: null,
      category_id: seed.frontEnd,
      number: 5,
      user,
    });
    expect(empty.status).toBe(422);
    expect(Object.keys(empty.body.errors)).toEqual(['content_id']);
  });
});

describe('courses, texts and files of level content', () => {
  it('adds courses and texts in order and moves them', async () => {
    const { contentId } = await courseFixture();
    const second = await sessions.admin.json<{ id: number }>('POST', `/api/level/content/${contentId}/courses`, { title: 'Tweede' });
    const third = await sessions.admin.json<{ id: number }>('POST', `/api/level/content/${contentId}/courses`, { title: 'Derde' });
    let courses = await sessions.admin.json<Array<{ id: number; title: string; texts: Array<{ title: string }> }>>('GET', `/api/level/content/${contentId}/courses`);
    expect(courses.body.map((course) => course.title)).toEqual(['Cursus', 'Tweede', 'Derde']);
    await sessions.admin.json('POST', `/api/level/courses/${third.body.id}/move`, { direction: 'up' });
    await sessions.admin.json('POST', `/api/level/courses/${third.body.id}/move`, { direction: 'up' });
    await sessions.admin.json('POST', `/api/level/courses/${third.body.id}/move`, { direction: 'up' }); // already first: no-op
    courses = await sessions.admin.json('GET', `/api/level/content/${contentId}/courses`);
    expect(courses.body.map((course) => course.title)).toEqual(['Derde', 'Cursus', 'Tweede']);

    await sessions.admin.json('POST', `/api/level/courses/${second.body.id}/texts`, { title: 'Een', body: '# Een' });
    const two = await sessions.admin.json<{ id: number }>('POST', `/api/level/courses/${second.body.id}/texts`, { title: 'Twee', body: '' });
    const moved = await sessions.admin.json<Array<{ title: string }>>('POST', `/api/level/courses/${second.body.id}/texts/${two.body.id}/move`, { direction: 'up' });
    expect(moved.body.map((text) => text.title)).toEqual(['Twee', 'Een']);
  });

  it('moves siblings at the same time without a failure, and keeps a clean order 0..n-1', async () => {
    // Concurrent moves used to lock the siblings in an order the other moves were changing: a
    // deadlock, answered 500 (found by tests/property).
    const { contentId } = await courseFixture();
    const ids: number[] = [];
    for (const title of ['A', 'B', 'C', 'D', 'E', 'F']) ids.push((await sessions.admin.json<{ id: number }>('POST', `/api/level/content/${contentId}/courses`, { title })).body.id);
    const moves = Array.from({ length: 60 }, (_, index) => ({ id: ids[index % ids.length] as number, direction: index % 3 === 0 ? 'down' : 'up' }));
    const statuses = await Promise.all(moves.map(async (move) => (await sessions.admin.api('POST', `/api/level/courses/${move.id}/move`, { direction: move.direction })).status));
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    const positions = await stack.database.knex('courses').where({ level_content_id: contentId }).orderBy('position').pluck('position');
    expect(positions).toEqual(positions.map((_, index) => index));
  });

  it('uploads a file into storage with a random key, and lists it for the course', async () => {
    const { courseId, contentId } = await courseFixture();
    const bytes = Buffer.from('%PDF-1.4 demo');
    const response = await upload(sessions.docent, courseId, { title: 'Opdracht 1', filename: 'Opdracht 1.PDF' }, bytes);
    expect(response.status).toBe(201);
    const file = (await response.json()) as { id: number; type: string; size: number; url: string; filename: string };
    expect(file).toMatchObject({ type: 'PDF', size: bytes.length, filename: 'Opdracht 1.PDF', url: `/api/level/files/${file.id}` });
    const row = await stack.database.knex('course_files').where({ id: file.id }).first();
    expect(row.storage_key).toMatch(/^[A-Za-z0-9_-]{8,128}$/);
    const stored = path.resolve('.tmp', `cp-${stack.app.port}`, 'course-files', row.storage_key);
    expect(readFileSync(stored)).toEqual(bytes);
    const courses = await sessions.docent.json<Array<{ id: number; files: Array<{ id: number }> }>>('GET', `/api/level/content/${contentId}/courses`);
    expect(courses.body[0]!.files.map((listed) => listed.id)).toContain(file.id);

    // Deleting the file removes the row and the bytes.
    expect((await sessions.docent.json('DELETE', `/api/level/courses/${courseId}/files/${file.id}`)).status).toBe(204);
    expect(existsSync(stored)).toBe(false);
  });

  it('refuses a file over the size limit with 413 and a clear message, and stores nothing', async () => {
    const { courseId } = await courseFixture();
    const response = await upload(sessions.admin, courseId, { title: 'Groot', filename: 'groot.zip' }, new Uint8Array(MAX_COURSE_FILE_BYTES + 1));
    expect(response.status).toBe(413);
    const body = (await response.json()) as { message: string; errors: { file: string[] } };
    expect(body.message).toBe('Het bestand is te groot: hoogstens 10 MB.');
    expect(body.errors.file).toEqual(['Het bestand is te groot: hoogstens 10 MB.']);
    expect(await stack.database.knex('course_files').where({ course_id: courseId, title: 'Groot' }).first()).toBeUndefined();
    // Exactly at the limit is fine.
    const atLimit = await upload(sessions.admin, courseId, { title: 'Precies', filename: 'precies.zip' }, new Uint8Array(MAX_COURSE_FILE_BYTES));
    expect(atLimit.status).toBe(201);
  });

  it('refuses types that are not allowed, empty files and bad names with 422', async () => {
    const { courseId } = await courseFixture();
    for (const filename of ['script.exe', 'pagina.html', 'geen-extensie']) {
      const response = await upload(sessions.admin, courseId, { title: 'x', filename }, Buffer.from('x'));
      expect(response.status, filename).toBe(422);
      const body = (await response.json()) as { errors: { filename: string[] } };
      expect(body.errors.filename[0]).toMatch(/^Dit soort bestand kan niet\. Toegestaan: pdf, zip/);
    }
    const traversal = await upload(sessions.admin, courseId, { title: 'x', filename: '../../etc/passwd.txt' }, Buffer.from('x'));
    expect(traversal.status).toBe(422);
    const empty = await upload(sessions.admin, courseId, { title: 'x', filename: 'leeg.txt' }, new Uint8Array(0));
    expect(empty.status).toBe(422);
    const untitled = await upload(sessions.admin, courseId, { filename: 'a.txt' }, Buffer.from('x'));
    expect(untitled.status).toBe(422);
    // A JSON content type is parsed by the body parser, so the raw bytes are gone: refused, not stored wrong.
    const asJson = await upload(sessions.admin, courseId, { title: 'x', filename: 'a.txt' }, Buffer.from('{}'), 'application/json');
    expect(asJson.status).toBe(415);
  });
});
