import type { Knex } from 'knex';
import { Course } from '../models/Course.ts';

/** Gives a course a new title; returns the course as stored, undefined when it is gone. */
export async function renameCourse(knex: Knex, courseId: number, title: string): Promise<Course | undefined> {
  await Course.query(knex).patch({ title }).where({ id: courseId });
  return Course.query(knex).findById(courseId);
}
