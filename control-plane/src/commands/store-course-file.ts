import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { CourseFileStore } from '../storage/course-file-store.ts';
import type { CourseFileRow } from '../presenters/present-level-content.ts';
import { nextPosition } from './move-in-order.ts';

/** A random storage key (base64url, 32 characters): never derived from the user's file name. */
export function newStorageKey(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * Stores an uploaded course file: the bytes first, then the row. When the row cannot be written
 * the bytes are removed again, so storage holds no file without a row.
 */
export async function storeCourseFile(
  knex: Knex,
  files: CourseFileStore,
  upload: { courseId: number; title: string; type: string; filename: string; data: Buffer },
): Promise<CourseFileRow> {
  const storageKey = newStorageKey();
  await files.put(storageKey, upload.data);
  try {
    const position = await nextPosition(knex, 'course_files', upload.courseId);
    const [row] = await knex('course_files')
      .insert({
        course_id: upload.courseId,
        title: upload.title,
        type: upload.type,
        filename: upload.filename,
        storage_key: storageKey,
        size: upload.data.length,
        position,
      })
      .returning<CourseFileRow[]>(['id', 'course_id', 'title', 'type', 'filename', 'size', 'position']);
    return row!;
  } catch (error) {
    await files.remove(storageKey);
    throw error;
  }
}

/**
 * Deletes course file rows (one file, or every file of a course about to be deleted) and then
 * their bytes. Rows go first: a crash in between leaves an orphaned file, never a row whose
 * download fails.
 */
export async function removeStoredFiles(files: CourseFileStore, storageKeys: readonly string[]): Promise<void> {
  for (const key of storageKeys) await files.remove(key);
}
