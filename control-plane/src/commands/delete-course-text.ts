import type { Knex } from 'knex';
import { CourseText } from '../models/CourseText.ts';

/** Deletes a text panel of a course. */
export async function deleteCourseText(knex: Knex, textId: number): Promise<void> {
  await CourseText.query(knex).deleteById(textId);
}
