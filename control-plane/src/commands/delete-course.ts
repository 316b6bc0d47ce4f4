import type { Knex } from 'knex';
import type { CourseFileStore } from '../storage/course-file-store.ts';
import { Course } from '../models/Course.ts';
import { CourseFile } from '../models/CourseFile.ts';
import { removeStoredFiles } from './delete-course-file.ts';

/** Deletes a course: texts and file rows go with it (on delete cascade), the files' bytes after. */
export async function deleteCourse(knex: Knex, files: CourseFileStore, courseId: number): Promise<void> {
  const stored = await CourseFile.query(knex).where({ course_id: courseId }).select('storage_key');
  await Course.query(knex).deleteById(courseId);
  await removeStoredFiles(
    files,
    stored.map((file) => file.storage_key),
  );
}
