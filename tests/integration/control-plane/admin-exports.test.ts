import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSeededControlPlane, type SeededControlPlane } from '../../support/services/control-plane.ts';
import { HttpSession } from '../../support/clients/http-session.ts';

/*
 * The teachers' spreadsheets (issue 22) through the real control plane on the demo data: what
 * they hold, Excel's format (byte order mark, ';', CRLF, formulas as text), the audit entry per
 * download, and who may not (the routes × roles table checks every role; here the student's
 * answer and an unknown group).
 */
let stack: SeededControlPlane;
let admin: HttpSession;

beforeAll(async () => {
  stack = await startSeededControlPlane();
  admin = new HttpSession(stack.app.url);
  expect((await admin.signIn('admin@devplein.test')).status).toBe(200);
});

afterAll(async () => {
  await stack?.stop();
});

/** The rows of a CSV answer without its byte order mark (no cell here has a line break). */
const rowsOf = (text: string): string[][] => text.replace(/^\uFEFF/, '').split('\r\n').filter(Boolean).map((line) => line.split(';'));

describe('GET /api/admin/exports/users.csv', () => {
  it('lists every user as Excel opens it, with a formula-looking name made text, and audits the download', async () => {
    const { knex } = stack.database;
    await knex('users').insert({ name: '=HYPERLINK("http://x";"klik")', name_slug: 'formule', email: 'formule@devplein.test', email_verified_at: new Date() });
    const response = await admin.api('GET', '/api/admin/exports/users.csv');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="gebruikers-\d{4}-\d{2}-\d{2}\.csv"/);
    const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(await response.arrayBuffer());
    expect(text.startsWith('\uFEFF')).toBe(true);
    const rows = rowsOf(text);
    expect(rows[0]).toEqual(['Naam', 'E-mailadres', 'Klas', 'Geactiveerd op', 'Uitgeschakeld op', 'Ontwikkelaar']);
    const users = await knex('users').count<[{ count: string | number }]>({ count: '*' });
    expect(rows.length - 1).toBe(Number(users[0]?.count));
    expect(text).toContain(`"'=HYPERLINK(""http://x"";""klik"")";formule@devplein.test;`);
    const adminRow = rows.find((row) => row[1] === 'admin@devplein.test');
    expect(adminRow?.[3]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
    const audit = await knex('audit_log').where({ action: 'export.users' }).orderBy('id', 'desc').first<{ actor_id: number; subject_id: string }>();
    const adminId = (await knex('users').where({ email: 'admin@devplein.test' }).first<{ id: number }>('id')).id;
    expect(audit).toMatchObject({ actor_id: adminId, subject_id: 'all' });
  });
});

describe('GET /api/admin/exports/levels/:groupId.csv', () => {
  it("gives one row per active student of the group and one column per level, the statuses as the table shows them", async () => {
    const { knex } = stack.database;
    const group = await knex('groups').where({ cohort: 'SD22' }).first<{ id: number }>('id');
    const response = await admin.api('GET', `/api/admin/exports/levels/${group.id}.csv`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toMatch(/filename="levels-SD22-\d{4}-\d{2}-\d{2}\.csv"/);
    const rows = rowsOf(await response.text());
    const categories = await knex('level_categories').orderBy('id').select<Array<{ id: number; title: string; number: number }>>('id', 'title', 'number');
    const expectedHeader = ['Naam', 'E-mailadres', ...categories.flatMap((category) => Array.from({ length: category.number }, (_, index) => `${category.title} ${index + 1}`))];
    expect(rows[0]).toEqual(expectedHeader);
    const students = await knex('users').where({ group_id: group.id }).whereNull('disabled_at').select<Array<{ id: number; email: string }>>('id', 'email');
    expect(rows.slice(1).map((row) => row[1]).sort()).toEqual(students.map((student) => student.email).sort());
    // Every cell against the database: the status word, or empty without a level record.
    const levels = await knex('levels').whereIn('user_id', students.map((student) => student.id)).select<Array<{ user_id: number; level_category_id: number; number: number; status: string }>>('user_id', 'level_category_id', 'number', 'status');
    expect(levels.length).toBeGreaterThan(0);
    const words: Record<string, string> = { locked: 'Locked', open: 'Open', success: 'Success' };
    for (const student of students) {
      const row = rows.find((cells) => cells[1] === student.email) ?? [];
      const expected = categories.flatMap((category) =>
        Array.from({ length: category.number }, (_, index) => {
          const level = levels.find((candidate) => candidate.user_id === student.id && candidate.level_category_id === category.id && candidate.number === index + 1);
          return level ? (words[level.status] ?? '?') : '';
        }),
      );
      expect(row.slice(2)).toEqual(expected);
    }
    expect(await knex('audit_log').where({ action: 'export.levels', subject_type: 'group', subject_id: String(group.id) }).first()).toBeDefined();
  });

  it('answers 404 for an unknown group and 422 for a group number that is not a number', async () => {
    expect((await admin.api('GET', '/api/admin/exports/levels/999999.csv')).status).toBe(404);
    const bad = await admin.api('GET', '/api/admin/exports/levels/abc.csv');
    expect(bad.status).toBe(422);
  });

  it('refuses a student (403) and writes no audit entry', async () => {
    const student = new HttpSession(stack.app.url);
    await student.signIn('student@devplein.test');
    const before = await stack.database.knex('audit_log').where('action', 'like', 'export.%').count<[{ count: string | number }]>({ count: '*' });
    expect((await student.api('GET', '/api/admin/exports/users.csv')).status).toBe(403);
    expect((await student.api('GET', '/api/admin/exports/levels/1.csv')).status).toBe(403);
    const after = await stack.database.knex('audit_log').where('action', 'like', 'export.%').count<[{ count: string | number }]>({ count: '*' });
    expect(Number(after[0]?.count)).toBe(Number(before[0]?.count));
  });
});
