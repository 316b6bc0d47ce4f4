import type { Knex } from 'knex';
import { CourseFile } from '../models/CourseFile.ts';

/** Gives a course file a new title (the title students see; name and bytes stay). */
export async function renameCourseFile(knex: Knex, fileId: number, title: string): Promise<void> {
  await CourseFile.query(knex).patch({ title }).where({ id: fileId });
}
