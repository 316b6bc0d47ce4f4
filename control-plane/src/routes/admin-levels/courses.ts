import path from 'node:path';
import type { Knex } from 'knex';
import {
  addCourse,
  addCourseText,
  deleteCourse as deleteCourseEndpoint,
  deleteCourseFile as deleteCourseFileEndpoint,
  deleteCourseText as deleteCourseTextEndpoint,
  listCourses,
  moveCourse,
  moveCourseFile,
  moveCourseText,
  renameCourse as renameCourseEndpoint,
  renameCourseFile as renameCourseFileEndpoint,
  updateCourseText as updateCourseTextEndpoint,
  uploadCourseFile,
} from '@devplein/contract/http/admin-levels';
import { COURSE_FILE_TYPES, MAX_COURSE_FILE_BYTES, courseFileTypeRefused } from '@devplein/contract/levels';
import { EMPTY_FILE_MESSAGE } from '@devplein/contract/messages';
import type { AppRouter } from '../../app-context.ts';
import type { CourseFileStore } from '../../storage/course-file-store.ts';
import { notFound, validationFailed } from '../../errors.ts';
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
import { handle } from '../handle.ts';

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
  // A change reads its body (422) only after the course, text or file it changes is found (404),
  // except a course's move, which finds the course by moving it.

  // --- courses ---
  handle(router, listCourses, async (_ctx, { params: { id } }) => {
    await loadContentId(knex, id);
    return coursesOf(knex, id);
  });

  handle(router, addCourse, async (ctx, input) => {
    const { id } = input.params;
    await loadContentId(knex, id);
    const course = await createCourse(knex, id, input.body.title);
    ctx.status = 201;
    return presentCourse(course);
  });

  handle(router, renameCourseEndpoint, async (_ctx, input) => {
    const { courseId } = input.params;
    await loadCourse(knex, courseId);
    const course = await renameCourse(knex, courseId, input.body.title);
    if (!course) throw notFound('Deze cursus bestaat niet.');
    return presentCourseHeading(course);
  });

  handle(router, deleteCourseEndpoint, async (ctx, { params: { courseId } }) => {
    await loadCourse(knex, courseId);
    await deleteCourse(knex, files, courseId);
    ctx.status = 204;
  });

  handle(router, moveCourse, async (_ctx, { params: { courseId }, body: { direction } }) => {
    if (!(await moveInOrder(knex, 'courses', courseId, direction))) throw notFound('Deze cursus bestaat niet.');
    const course = await loadCourse(knex, courseId);
    return coursesOf(knex, course.level_content_id);
  });

  // --- texts ---
  handle(router, addCourseText, async (ctx, input) => {
    const { courseId } = input.params;
    await loadCourse(knex, courseId);
    const { title, body } = input.body;
    const text = await createCourseText(knex, courseId, { title, body });
    ctx.status = 201;
    return presentCourseText(text);
  });

  handle(router, updateCourseTextEndpoint, async (_ctx, input) => {
    const { courseId, textId } = input.params;
    await loadText(knex, courseId, textId);
    const { title, body } = input.body;
    await updateCourseText(knex, textId, { title, body });
    return presentCourseText(await loadText(knex, courseId, textId));
  });

  handle(router, deleteCourseTextEndpoint, async (ctx, { params: { courseId, textId } }) => {
    await loadText(knex, courseId, textId);
    await deleteCourseText(knex, textId);
    ctx.status = 204;
  });

  handle(router, moveCourseText, async (_ctx, input) => {
    const { courseId, textId } = input.params;
    await loadText(knex, courseId, textId);
    await moveInOrder(knex, 'course_texts', textId, input.body.direction);
    return (await listCourseTexts(knex, courseId)).map(presentCourseText);
  });

  // --- files ---
  // The body is the file's bytes (no JSON, no multipart): read here as a stream, up to the limit.
  handle(router, uploadCourseFile, async (ctx, { params: { courseId }, query: { title, filename } }) => {
    await loadCourse(knex, courseId);
    const type = courseFileType(filename);
    if (type === undefined) {
      throw validationFailed({ filename: [courseFileTypeRefused()] });
    }
    const data = await readRawBody(ctx, MAX_COURSE_FILE_BYTES);
    if (data.length === 0) throw validationFailed({ file: [EMPTY_FILE_MESSAGE] });
    const row = await storeCourseFile(knex, files, { courseId, title, type, filename, data });
    ctx.status = 201;
    return presentCourseFile(row);
  });

  handle(router, renameCourseFileEndpoint, async (_ctx, input) => {
    const { courseId, fileId } = input.params;
    await loadFile(knex, courseId, fileId);
    await renameCourseFile(knex, fileId, input.body.title);
    return presentCourseFile(await loadFile(knex, courseId, fileId));
  });

  handle(router, deleteCourseFileEndpoint, async (ctx, { params: { courseId, fileId } }) => {
    const file = await loadFile(knex, courseId, fileId);
    await deleteCourseFile(knex, files, file);
    ctx.status = 204;
  });

  handle(router, moveCourseFile, async (_ctx, input) => {
    const { courseId, fileId } = input.params;
    await loadFile(knex, courseId, fileId);
    await moveInOrder(knex, 'course_files', fileId, input.body.direction);
    return (await listCourseFiles(knex, courseId)).map(presentCourseFile);
  });
}
