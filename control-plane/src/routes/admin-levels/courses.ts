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
  presentCourseHeading,
  presentCourseText,
} from '../../presenters/present-level-content.ts';
import type { Course } from '../../models/Course.ts';
import type { CourseFile } from '../../models/CourseFile.ts';
import type { CourseText } from '../../models/CourseText.ts';
import {
  findCourse,
  findCourseFile,
  findCourseText,
  levelContentExists,
  listCourseFiles,
  listCourseTexts,
  loadCourseGraph,
} from '../../queries/levels.ts';
import { moveInOrder } from '../../lib/move-in-order.ts';
import { storeCourseFile } from '../../commands/store-course-file.ts';
import { createCourse } from '../../commands/create-course.ts';
import { renameCourse } from '../../commands/rename-course.ts';
import { deleteCourse } from '../../commands/delete-course.ts';
import { createCourseText } from '../../commands/create-course-text.ts';
import { updateCourseText } from '../../commands/update-course-text.ts';
import { deleteCourseText } from '../../commands/delete-course-text.ts';
import { renameCourseFile } from '../../commands/rename-course-file.ts';
import { deleteCourseFile } from '../../commands/delete-course-file.ts';
import { readRawBody } from '../../middlewares/raw-body.ts';
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

/** Every course of one level content with texts and files (the course graph: three queries, not one per course). */
async function coursesOf(knex: Knex, contentId: number) {
  return (await loadCourseGraph(knex, contentId)).map(presentCourse);
}

async function loadContentId(knex: Knex, id: number): Promise<void> {
  if (!(await levelContentExists(knex, id))) throw notFound('Deze levelinhoud bestaat niet.');
}

async function loadCourse(knex: Knex, courseId: number): Promise<Course> {
  const course = await findCourse(knex, courseId);
  if (!course) throw notFound('Deze cursus bestaat niet.');
  return course;
}

async function loadText(knex: Knex, courseId: number, textId: number): Promise<CourseText> {
  const text = await findCourseText(knex, courseId, textId);
  if (!text) throw notFound('Deze tekst bestaat niet.');
  return text;
}

async function loadFile(knex: Knex, courseId: number, fileId: number): Promise<CourseFile> {
  const file = await findCourseFile(knex, courseId, fileId);
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
    await loadContentId(knex, id);
    ctx.body = await coursesOf(knex, id);
  });

  router.post('/api/level/content/:id/courses', async (ctx) => {
    authorizeLevelManagement(activeUser(ctx));
    const { id } = parseInput(ctx, idParams, 'params');
    await loadContentId(knex, id);
    const input = parseInput(ctx, courseInput, 'body');
    const course = await createCourse(knex, id, input.title);
    ctx.status = 201;
    ctx.body = presentCourse(course);
  });

  router.put('/api/level/courses/:courseId', async (ctx) => {
    authorizeLevelManagement(activeUser(ctx));
    const { courseId } = parseInput(ctx, courseIdParams, 'params');
    await loadCourse(knex, courseId);
    const input = parseInput(ctx, courseInput, 'body');
    const course = await renameCourse(knex, courseId, input.title);
    if (!course) throw notFound('Deze cursus bestaat niet.');
    ctx.body = presentCourseHeading(course);
  });

  router.delete('/api/level/courses/:courseId', async (ctx) => {
    authorizeLevelManagement(activeUser(ctx));
    const { courseId } = parseInput(ctx, courseIdParams, 'params');
    await loadCourse(knex, courseId);
    await deleteCourse(knex, files, courseId);
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
    const text = await createCourseText(knex, courseId, { title: input.title, body: input.body });
    ctx.status = 201;
    ctx.body = presentCourseText(text);
  });

  router.put('/api/level/courses/:courseId/texts/:textId', async (ctx) => {
    authorizeLevelManagement(activeUser(ctx));
    const { courseId, textId } = parseInput(ctx, courseTextParams, 'params');
    await loadText(knex, courseId, textId);
    const input = parseInput(ctx, courseTextInput, 'body');
    await updateCourseText(knex, textId, { title: input.title, body: input.body });
    ctx.body = presentCourseText(await loadText(knex, courseId, textId));
  });

  router.delete('/api/level/courses/:courseId/texts/:textId', async (ctx) => {
    authorizeLevelManagement(activeUser(ctx));
    const { courseId, textId } = parseInput(ctx, courseTextParams, 'params');
    await loadText(knex, courseId, textId);
    await deleteCourseText(knex, textId);
    ctx.status = 204;
  });

  router.post('/api/level/courses/:courseId/texts/:textId/move', async (ctx) => {
    authorizeLevelManagement(activeUser(ctx));
    const { courseId, textId } = parseInput(ctx, courseTextParams, 'params');
    await loadText(knex, courseId, textId);
    const { direction } = parseInput(ctx, moveInput, 'body');
    await moveInOrder(knex, 'course_texts', textId, direction);
    ctx.body = (await listCourseTexts(knex, courseId)).map(presentCourseText);
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
    await renameCourseFile(knex, fileId, input.title);
    ctx.body = presentCourseFile(await loadFile(knex, courseId, fileId));
  });

  router.delete('/api/level/courses/:courseId/files/:fileId', async (ctx) => {
    authorizeLevelManagement(activeUser(ctx));
    const { courseId, fileId } = parseInput(ctx, courseFileParams, 'params');
    const file = await loadFile(knex, courseId, fileId);
    await deleteCourseFile(knex, files, file);
    ctx.status = 204;
  });

  router.post('/api/level/courses/:courseId/files/:fileId/move', async (ctx) => {
    authorizeLevelManagement(activeUser(ctx));
    const { courseId, fileId } = parseInput(ctx, courseFileParams, 'params');
    await loadFile(knex, courseId, fileId);
    const { direction } = parseInput(ctx, moveInput, 'body');
    await moveInOrder(knex, 'course_files', fileId, direction);
    ctx.body = (await listCourseFiles(knex, courseId)).map(presentCourseFile);
  });
}
