import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { CourseFileStore } from '../storage/course-file-store.ts';
import { CourseFile } from '../models/CourseFile.ts';
import { nextPosition } from '../lib/move-in-order.ts';

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
): Promise<CourseFile> {
  const storageKey = newStorageKey();
  await files.put(storageKey, upload.data);
  try {
    const position = await nextPosition(knex, 'course_files', upload.courseId);
    return await CourseFile.query(knex)
      .insert({
        course_id: upload.courseId,
        title: upload.title,
        type: upload.type,
        filename: upload.filename,
        storage_key: storageKey,
        size: upload.data.length,
        position,
      })
      .returning(['id', 'course_id', 'title', 'type', 'filename', 'size', 'position']);
  } catch (error) {
    await files.remove(storageKey);
    throw error;
  }
}
