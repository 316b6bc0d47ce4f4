import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { LevelCategoryJson, LevelJson, LevelStatus } from '@devplein/contract/levels';
import { createCourseFileStore } from '../../../control-plane/src/storage/course-file-store.ts';
import { seededControlPlane } from '../../support/stacks/seeded-control-plane.ts';
import { HttpSession, signedInSessions } from '../../support/clients/http-session.ts';

/*
 * Levels, level detail and course file downloads (routes/levels), against the real control
 * plane and PostgreSQL with the demo seed. (Profiles: user.test.ts; the project request list:
 * admin-projects.test.ts.)
 * Expectations are read from the database, not from the seed's formula.
 */

type Status = LevelStatus;
type Category = LevelCategoryJson;
interface LevelRow {
  id: number;
  user_id: number;
  level_category_id: number;
  level_content_id: number | null;
  number: number;
  status: Status;
}

/** The control plane's data folder, this test's own: addCourseFile puts files in its store. */
let dataDir: string;
const stack = seededControlPlane({
  before: async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'devplein-levels-'));
    return { DATA_DIR: dataDir };
  },
  after: async () => {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  },
});

/** One signed-in session per account, reused across tests (sign-in is the slow part). */
const as = signedInSessions(() => stack.app.url);

const anonymous = () => new HttpSession(stack.app.url);

async function userIdOf(email: string): Promise<number> {
  const row = await stack.database.knex('users').where({ email }).first<{ id: number }>();
  return row.id;
}

async function emailOf(name: string): Promise<string> {
  const row = await stack.database.knex('users').where({ name }).first<{ email: string }>();
  return row.email;
}

async function levelsOf(email: string): Promise<LevelRow[]> {
  return stack.database.knex('levels').where({ user_id: await userIdOf(email) }).orderBy(['level_category_id', 'number']);
}

async function levelWithStatus(email: string, status: Status): Promise<LevelRow> {
  const level = (await levelsOf(email)).find((row) => row.status === status && row.level_content_id !== null);
  if (!level) throw new Error(`seed has no ${status} level for ${email}`);
  return level;
}

async function projectsCategory(): Promise<{ id: number }> {
  return stack.database.knex('level_categories').where({ number: 16 }).first<{ id: number }>();
}

/** Stores a course file for a level content (bytes in the control plane's store, row in the table). */
async function addCourseFile(contentId: number, filename: string, data: Buffer, storageKey: string, type = 'PDF'): Promise<number> {
  const course = await stack.database.knex('courses').where({ level_content_id: contentId }).orderBy('position').first<{ id: number }>();
  if (storageKey !== 'missing-from-storage') await createCourseFileStore(path.join(dataDir, 'course-files')).put(storageKey, data);
  const [row] = (await stack.database
    .knex('course_files')
    .insert({ course_id: course.id, title: `Bestand ${filename}`, type, filename, storage_key: storageKey, size: data.length, position: 0 })
    .returning('id')) as Array<{ id: number }>;
  return row!.id;
}

describe('GET /api/level/categories/index', () => {
  it('answers 401 signed out and 403 not_verified for a not-activated account', async () => {
    expect((await anonymous().json('GET', '/api/level/categories/index')).status).toBe(401);
    const newcomer = await (await as('nieuw@devplein.test')).json<{ reason: string }>('GET', '/api/level/categories/index');
    expect(newcomer.status).toBe(403);
    expect(newcomer.body.reason).toBe('not_verified');
  });

  it('refuses students without a group (no Levels menu for them), developer or not', async () => {
    const withoutGroup = await (await as('zonderklas@devplein.test')).json<{ message: string }>('GET', '/api/level/categories/index');
    expect(withoutGroup.status).toBe(403);
    expect(withoutGroup.body.message).toMatch(/Levels/);
    const developerWithoutGroup = await as(await emailOf('Tim Huisman'));
    expect((await developerWithoutGroup.json('GET', '/api/level/categories/index')).status).toBe(403);
  });

  it('gives a student every category with tiles 1..n: their levels with status and first course title, placeholders for the rest', async () => {
    const { status, body } = await (await as('student@devplein.test')).json<Category[]>('GET', '/api/level/categories/index');
    expect(status).toBe(200);
    const categories = await stack.database.knex('level_categories').orderBy('id');
    expect(body.map((category) => category.title)).toEqual(categories.map((category: { title: string }) => category.title));
    const own = await levelsOf('student@devplein.test');
    for (const category of body) {
      expect(category.levels.map((tile) => tile.number)).toEqual(Array.from({ length: category.shownNumber }, (_, i) => i + 1));
      for (const tile of category.levels) {
        const level = own.find((row) => row.level_category_id === category.id && row.number === tile.number);
        if (level) {
          expect(tile).toMatchObject({ id: level.id, status: level.status });
        } else {
          expect(tile).toEqual({ id: null, number: tile.number, title: '-', status: 'locked', content: null });
        }
      }
    }
    // The tile title is the first course title of the level's content.
    const frontEndFirst = body[0]!.levels[0]!;
    const firstLevel = own.find((row) => row.id === frontEndFirst.id)!;
    const firstCourse = await stack.database
      .knex('courses')
      .where({ level_content_id: firstLevel.level_content_id })
      .orderBy(['position', 'id'])
      .first<{ title: string }>();
    expect(frontEndFirst.title).toBe(firstCourse.title);
    expect(new Set(body.flatMap((category) => category.levels.map((tile) => tile.status)))).toEqual(new Set(['locked', 'open', 'success']));
  });

  it('applies §9: the 16-level category shows 10 tiles for SD22/SD23 and users without a cohort, 16 for SD20 and SD21', async () => {
    const projects = await projectsCategory();
    const tilesFor = async (email: string) => {
      const { body } = await (await as(email)).json<Category[]>('GET', '/api/level/categories/index');
      const category = body.find((entry) => entry.id === projects.id)!;
      expect(category.number).toBe(16);
      return category.levels.length;
    };
    expect(await tilesFor('student@devplein.test')).toBe(10); // SD23
    expect(await tilesFor('ontwikkelaar@devplein.test')).toBe(10); // SD22
    expect(await tilesFor(await emailOf('Daan de Vries'))).toBe(16); // SD20
    expect(await tilesFor(await emailOf('Lisa Bos'))).toBe(16); // SD21
    expect(await tilesFor('admin@devplein.test')).toBe(10); // no cohort
  });

  it('gives admins (developer or not) every category, with placeholders where they have no levels', async () => {
    for (const email of ['admin@devplein.test', 'docent@devplein.test']) {
      const { status, body } = await (await as(email)).json<Category[]>('GET', '/api/level/categories/index');
      expect(status).toBe(200);
      expect(body.length).toBeGreaterThanOrEqual(4);
      expect(body.every((category) => category.levels.every((tile) => tile.id === null && tile.title === '-'))).toBe(true);
    }
  });
});

describe('GET /api/level/{id}', () => {
  it('shows a student their open level with courses, texts and files', async () => {
    const level = await levelWithStatus('student@devplein.test', 'open');
    const { status, body } = await (await as('student@devplein.test')).json<LevelJson>('GET', `/api/level/${level.id}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ id: level.id, number: level.number, status: 'open' });
    const courses = await stack.database.knex('courses').where({ level_content_id: level.level_content_id }).orderBy(['position', 'id']);
    expect(body.courses.map((course) => course.title)).toEqual(courses.map((course: { title: string }) => course.title));
    expect(body.courses[0]!.texts.length).toBeGreaterThan(0);
    expect(body.courses[0]!.texts[0]).toEqual({ title: expect.any(String), text: expect.any(String) });
    expect(body.content?.title).toEqual(expect.any(String));
  });

  it('shows a finished level with status success', async () => {
    const level = await levelWithStatus('student@devplein.test', 'success');
    const { status, body } = await (await as('student@devplein.test')).json<LevelJson>('GET', `/api/level/${level.id}`);
    expect(status).toBe(200);
    expect(body.status).toBe('success');
  });

  it('refuses the content of a locked level to the student (403, Dutch message) but not to admins', async () => {
    const level = await levelWithStatus('student@devplein.test', 'locked');
    const refused = await (await as('student@devplein.test')).json<{ message: string; courses?: unknown }>('GET', `/api/level/${level.id}`);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('op slot');
    expect(refused.body).not.toHaveProperty('courses');
    for (const email of ['admin@devplein.test', 'docent@devplein.test']) {
      const read = await (await as(email)).json<LevelJson>('GET', `/api/level/${level.id}`);
      expect(read.status).toBe(200);
      expect(read.body.status).toBe('locked');
    }
  });

  it('answers someone else’s level and an unknown id with 404, bad ids with 422', async () => {
    const student = await as('student@devplein.test');
    const othersLevel = await levelWithStatus('ontwikkelaar@devplein.test', 'success');
    expect((await student.json('GET', `/api/level/${othersLevel.id}`)).status).toBe(404);
    expect((await student.json('GET', '/api/level/999999')).status).toBe(404);
    for (const bad of ['abc', '0', '-3', '1.5', '99999999999']) {
      const answer = await student.json<{ errors: Record<string, string[]> }>('GET', `/api/level/${bad}`);
      expect(answer.status, bad).toBe(422);
      expect(answer.body.errors.id).toBeDefined();
    }
  });

  it('lets a developer read their own level; answers 401/403 to anonymous, not activated and group-less users', async () => {
    const level = await levelWithStatus('ontwikkelaar@devplein.test', 'success');
    expect((await (await as('ontwikkelaar@devplein.test')).json('GET', `/api/level/${level.id}`)).status).toBe(200);
    expect((await anonymous().json('GET', `/api/level/${level.id}`)).status).toBe(401);
    expect((await (await as('nieuw@devplein.test')).json('GET', `/api/level/${level.id}`)).status).toBe(403);
    expect((await (await as('zonderklas@devplein.test')).json('GET', `/api/level/${level.id}`)).status).toBe(403);
  });
});

describe('GET /api/level/files/{fileId}', () => {
  let openFileId: number;
  let lockedFileId: number;
  let foreignFileId: number;
  let missingFileId: number;
  const pdf = Buffer.from('%PDF-1.4 opdracht voor level\n');

  beforeAll(async () => {
    const open = await levelWithStatus('student@devplein.test', 'open');
    const locked = await levelWithStatus('student@devplein.test', 'locked');
    openFileId = await addCourseFile(open.level_content_id!, 'opdracht 1.pdf', pdf, 'open-level-file-0001');
    lockedFileId = await addCourseFile(locked.level_content_id!, 'later.zip', Buffer.from('PK'), 'locked-level-file-0001', 'ZIP');
    // A content none of Sam's levels use.
    const samContents = (await levelsOf('student@devplein.test')).map((row) => row.level_content_id);
    const foreign = await stack.database.knex('level_contents').whereNotIn('id', samContents.filter((id) => id !== null)).first<{ id: number }>();
    foreignFileId = await addCourseFile(foreign.id, 'vreemd.pdf', pdf, 'foreign-level-file-0001');
    missingFileId = await addCourseFile(open.level_content_id!, 'weg.pdf', pdf, 'missing-from-storage');
  });

  it('downloads a file of an unlocked level as an attachment with its type', async () => {
    const response = await (await as('student@devplein.test')).api('GET', `/api/level/files/${openFileId}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toContain('attachment');
    expect(response.headers.get('content-disposition')).toContain("filename*=UTF-8''opdracht%201.pdf");
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await response.arrayBuffer())).toEqual(pdf);
  });

  it('lists the file in the level detail', async () => {
    const open = await levelWithStatus('student@devplein.test', 'open');
    const { body } = await (await as('student@devplein.test')).json<LevelJson>('GET', `/api/level/${open.id}`);
    expect(body.courses.flatMap((course) => course.files)).toContainEqual({ id: openFileId, title: 'Bestand opdracht 1.pdf', type: 'PDF' });
  });

  it('refuses a locked level’s file (403) and a file of content the student does not have (404)', async () => {
    const student = await as('student@devplein.test');
    expect((await student.json('GET', `/api/level/files/${lockedFileId}`)).status).toBe(403);
    expect((await student.json('GET', `/api/level/files/${foreignFileId}`)).status).toBe(404);
    expect((await student.json('GET', '/api/level/files/999999')).status).toBe(404);
    expect((await student.json('GET', '/api/level/files/abc')).status).toBe(422);
    expect((await student.json('GET', `/api/level/files/${missingFileId}`)).status).toBe(404);
  });

  it('lets admins download any file; anonymous 401, not activated 403', async () => {
    for (const id of [lockedFileId, foreignFileId]) {
      expect((await (await as('docent@devplein.test')).api('GET', `/api/level/files/${id}`)).status).toBe(200);
    }
    expect((await anonymous().json('GET', `/api/level/files/${openFileId}`)).status).toBe(401);
    expect((await (await as('nieuw@devplein.test')).json('GET', `/api/level/files/${openFileId}`)).status).toBe(403);
  });
});
