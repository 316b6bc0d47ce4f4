import path from 'node:path';
import type { Knex } from 'knex';
import type { AppRouter } from '../../app-context.ts';
import type { CourseFileStore } from '../../storage/course-file-store.ts';
import { activeUser } from '../../middlewares/authenticate.ts';
import { parseInput } from '../../middlewares/validate.ts';
import { notFound, validationFailed } from '../../errors.ts';
import { authorizeLevelManagement } from '../../policies/admin-level-policy.ts';
import {
  presentCourse,
  presentCourseFile,
  presentCourseText,
  type CourseFileRow,
} from '../../presenters/present-level-content.ts';
import { moveInOrder, nextPosition } from '../../commands/move-in-order.ts';
import { removeStoredFiles, storeCourseFile } from '../../commands/store-course-file.ts';
import { readRawBody } from './raw-body.ts';
import {
  COURSE_FILE_TYPES,
  MAX_COURSE_FILE_BYTES,
  courseFileParams,
  courseFileRename,
  courseFileUploadQuery,
  courseIdParams,
  courseInput,
  courseTextInput,
  courseTextParams,
  idParams,
  moveInput,
} from './schema.ts';
import { courseFileTypeRefused } from '@devplein/contract/levels';
import { EMPTY_FILE_MESSAGE } from '@devplein/contract/messages';

interface CourseRow {
  id: number;
  level_content_id: number;
  title: string;
  position: number;
}

interface CourseTextRow {
  id: number;
  course_id: number;
  title: string;
  body: string;
  position: number;
}

const FILE_COLUMNS = ['id', 'course_id', 'title', 'type', 'filename', 'size', 'position'] as const;
const ORDER = [{ column: 'position' }, { column: 'id' }];

/** Every course of one level content with texts and files: three queries, not one per course. */
async function coursesOf(knex: Knex, contentId: number) {
  const courses = await knex<CourseRow>('courses').where({ level_content_id: contentId }).orderBy(ORDER);
  const courseIds = courses.map((course) => course.id);
  const [texts, files] = await Promise.all([
    knex<CourseTextRow>('course_texts').whereIn('course_id', courseIds).orderBy(ORDER),
    knex<CourseFileRow>('course_files').whereIn('course_id', courseIds).select(...FILE_COLUMNS).orderBy(ORDER),
  ]);
  return courses.map((course) =>
    presentCourse(
      course,
      texts.filter((text) => text.course_id === course.id),
      files.filter((file) => file.course_id === course.id),
    ),
  );
}

async function loadCourse(knex: Knex, courseId: number): Promise<CourseRow> {
  const course = await knex<CourseRow>('courses').where({ id: courseId }).first();
  if (!course) throw notFound('Deze cursus bestaat niet.');
  return course;
}

async function loadText(knex: Knex, courseId: number, textId: number): Promise<CourseTextRow> {
  const text = await knex<CourseTextRow>('course_texts').where({ id: textId, course_id: courseId }).first();
  if (!text) throw notFound('Deze tekst bestaat niet.');
  return text;
}

async function loadFile(knex: Knex, courseId: number, fileId: number): Promise<CourseFileRow & { storage_key: string }> {
  const file = await knex<CourseFileRow & { storage_key: string }>('course_files')
    .where({ id: fileId, course_id: courseId })
    .first();
  if (!file) throw notFound('Dit bestand bestaat niet.');
  return file;
}

/** The type shown to students, from the file name's extension; undefined when not allowed. */
export function courseFileType(filename: string): string | undefined {
  const extension = path.extname(filename).slice(1).toLowerCase();
  return Object.hasOwn(COURSE_FILE_TYPES, extension) ? COURSE_FILE_TYPES[extension] : undefined;
}

/**
 * Courses of level content with their texts and files (beyond the spec: the content edit page).
 * Downloads are GET /api/level/files/{fileId} of the student level routes.
 */
export function addCourseRoutes(router: AppRouter, knex: Knex, files: CourseFileStore): void {
  // --- courses ---
  router.get('/api/level/content/:id/courses', async (ctx) => {
    authorizeLevelManagement(activeUser(ctx));
    const { id } = parseInput(ctx, idParams, 'params');
    const content = await knex('level_contents').where({ id }).first('id');
    if (!content) throw notFound('Deze levelinhoud bestaat niet.');
    ctx.body = await coursesOf(knex, id);
  });

  router.post('/api/level/content/:id/courses', async (ctx) => {
    authorizeLevelManagement(activeUser(ctx));
    const { id } = parseInput(ctx, idParams, 'params');
    const content = await knex('level_contents').where({ id }).first('id');
    if (!content) throw notFound('Deze levelinhoud bestaat niet.');
    const input = parseInput(ctx, courseInput, 'body');
    const position = await nextPosition(knex, 'courses', id);
    const [course] = await knex<CourseRow>('courses')
      .insert({ level_content_id: id, title: input.title, position })
      .returning('*');
    ctx.status = 201;
    ctx.body = presentCourse(course!, [], []);
  });

  router.put('/api/level/courses/:courseId', async (ctx) => {
    authorizeLevelManagement(activeUser(ctx));
    const { courseId } = parseInput(ctx, courseIdParams, 'params');
    await loadCourse(knex, courseId);
    const input = parseInput(ctx, courseInput, 'body');
    await knex('courses').where({ id: courseId }).update({ title: input.title });
    const course = await loadCourse(knex, courseId);
    ctx.body = { id: course.id, title: course.title, position: course.position };
  });

  router.delete('/api/level/courses/:courseId', async (ctx) => {
    authorizeLevelManagement(activeUser(ctx));
    const { courseId } = parseInput(ctx, courseIdParams, 'params');
    await loadCourse(knex, courseId);
    const keys = await knex('course_files').where({ course_id: courseId }).pluck<string[]>('storage_key');
    // Texts and file rows go with the course (on delete cascade); the bytes after.
    await knex('courses').where({ id: courseId }).delete();
    await removeStoredFiles(files, keys);
    ctx.status = 204;
  });

  router.post('/api/level/courses/:courseId/move', async (ctx) => {
    authorizeLevelManagement(activeUser(ctx));
    const { courseId } = parseInput(ctx, courseIdParams, 'params');
    const { direction } = parseInput(ctx, moveInput, 'body');
    if (!(await moveInOrder(knex, 'courses', courseId, direction))) throw notFound('Deze cursus bestaat niet.');
    const course = await loadCourse(knex, courseId);
    ctx.body = await coursesOf(knex, course.level_content_id);
  });

  // --- texts ---
  router.post('/api/level/courses/:courseId/texts', async (ctx) => {
    authorizeLevelManagement(activeUser(ctx));
    const { courseId } = parseInput(ctx, courseIdParams, 'params');
    await loadCourse(knex, courseId);
    const input = parseInput(ctx, courseTextInput, 'body');
    const position = await nextPosition(knex, 'course_texts', courseId);
    const [text] = await knex<CourseTextRow>('course_texts')
      .insert({ course_id: courseId, title: input.title, body: input.body, position })
      .returning('*');
    ctx.status = 201;
    ctx.body = presentCourseText(text!);
  });

  router.put('/api/level/courses/:courseId/texts/:textId', async (ctx) => {
    authorizeLevelManagement(activeUser(ctx));
    const { courseId, textId } = parseInput(ctx, courseTextParams, 'params');
    await loadText(knex, courseId, textId);
    const input = parseInput(ctx, courseTextInput, 'body');
    await knex('course_texts').where({ id: textId }).update({ title: input.title, body: input.body });
    ctx.body = presentCourseText(await loadText(knex, courseId, textId));
  });

  router.delete('/api/level/courses/:courseId/texts/:textId', async (ctx) => {
    authorizeLevelManagement(activeUser(ctx));
    const { courseId, textId } = parseInput(ctx, courseTextParams, 'params');
    await loadText(knex, courseId, textId);
    await knex('course_texts').where({ id: textId }).delete();
    ctx.status = 204;
  });

  router.post('/api/level/courses/:courseId/texts/:textId/move', async (ctx) => {
    authorizeLevelManagement(activeUser(ctx));
    const { courseId, textId } = parseInput(ctx, courseTextParams, 'params');
    await loadText(knex, courseId, textId);
    const { direction } = parseInput(ctx, moveInput, 'body');
    await moveInOrder(knex, 'course_texts', textId, direction);
    const texts = await knex<CourseTextRow>('course_texts').where({ course_id: courseId }).orderBy(ORDER);
    ctx.body = texts.map(presentCourseText);
  });

  // --- files ---
  router.post('/api/level/courses/:courseId/files', async (ctx) => {
    authorizeLevelManagement(activeUser(ctx));
    const { courseId } = parseInput(ctx, courseIdParams, 'params');
    await loadCourse(knex, courseId);
    const { title, filename } = parseInput(ctx, courseFileUploadQuery, 'query');
    const type = courseFileType(filename);
    if (type === undefined) {
      throw validationFailed({ filename: [courseFileTypeRefused()] });
    }
    const data = await readRawBody(ctx, MAX_COURSE_FILE_BYTES);
    if (data.length === 0) throw validationFailed({ file: [EMPTY_FILE_MESSAGE] });
    const row = await storeCourseFile(knex, files, { courseId, title, type, filename, data });
    ctx.status = 201;
    ctx.body = presentCourseFile(row);
  });

  router.put('/api/level/courses/:courseId/files/:fileId', async (ctx) => {
    authorizeLevelManagement(activeUser(ctx));
    const { courseId, fileId } = parseInput(ctx, courseFileParams, 'params');
    await loadFile(knex, courseId, fileId);
    const input = parseInput(ctx, courseFileRename, 'body');
    await knex('course_files').where({ id: fileId }).update({ title: input.title });
    ctx.body = presentCourseFile(await loadFile(knex, courseId, fileId));
  });

  router.delete('/api/level/courses/:courseId/files/:fileId', async (ctx) => {
    authorizeLevelManagement(activeUser(ctx));
    const { courseId, fileId } = parseInput(ctx, courseFileParams, 'params');
    const file = await loadFile(knex, courseId, fileId);
    await knex('course_files').where({ id: fileId }).delete();
    await removeStoredFiles(files, [file.storage_key]);
    ctx.status = 204;
  });

  router.post('/api/level/courses/:courseId/files/:fileId/move', async (ctx) => {
    authorizeLevelManagement(activeUser(ctx));
    const { courseId, fileId } = parseInput(ctx, courseFileParams, 'params');
    await loadFile(knex, courseId, fileId);
    const { direction } = parseInput(ctx, moveInput, 'body');
    await moveInOrder(knex, 'course_files', fileId, direction);
    const rows = await knex<CourseFileRow>('course_files').where({ course_id: courseId }).select(...FILE_COLUMNS).orderBy(ORDER);
    ctx.body = rows.map(presentCourseFile);
  });
}
