import type { Knex } from 'knex';
import type { CourseFileStore } from '../storage/course-file-store.ts';
import { CourseFile } from '../models/CourseFile.ts';

/**
 * Removes the bytes of course files whose rows are gone (one file, or every file of a deleted
 * course). Rows go first: a crash in between leaves an orphaned file, never a row whose
 * download fails.
 */
export async function removeStoredFiles(files: CourseFileStore, storageKeys: readonly string[]): Promise<void> {
  for (const key of storageKeys) await files.remove(key);
}

/** Deletes one course file: the row, then its bytes. */
export async function deleteCourseFile(knex: Knex, files: CourseFileStore, file: { id: number; storage_key: string }): Promise<void> {
  await CourseFile.query(knex).deleteById(file.id);
  await removeStoredFiles(files, [file.storage_key]);
}
