import type { Knex } from 'knex';
import { CourseText } from '../models/CourseText.ts';

/** Saves a text panel's title and body. */
export async function updateCourseText(knex: Knex, textId: number, text: { title: string; body: string }): Promise<void> {
  await CourseText.query(knex).patch({ title: text.title, body: text.body }).where({ id: textId });
}
