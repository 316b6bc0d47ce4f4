import type { Knex } from 'knex';
import { CourseText } from '../models/CourseText.ts';
import { nextPosition } from '../lib/move-in-order.ts';

/** Adds a text panel at the end of a course's texts. */
export async function createCourseText(knex: Knex, courseId: number, text: { title: string; body: string }): Promise<CourseText> {
  const position = await nextPosition(knex, 'course_texts', courseId);
  return CourseText.query(knex).insert({ course_id: courseId, title: text.title, body: text.body, position }).returning('*');
}
