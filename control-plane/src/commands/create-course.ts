import type { Knex } from 'knex';
import { Course } from '../models/Course.ts';
import { nextPosition } from '../lib/move-in-order.ts';

/** Adds a course at the end of a level content's courses. */
export async function createCourse(knex: Knex, contentId: number, title: string): Promise<Course> {
  const position = await nextPosition(knex, 'courses', contentId);
  return Course.query(knex).insert({ level_content_id: contentId, title, position }).returning('*');
}
