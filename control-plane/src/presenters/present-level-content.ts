import type { LevelContentJson, CourseTextJson, CourseFileJson, CourseJson } from '@devplein/contract/levels';
import { pathOf } from '@devplein/contract/http/endpoint';
import { courseFile } from '@devplein/contract/http/levels';
import type { LevelContentRow } from '../queries/levels.ts';
export type { LevelContentJson, CourseTextJson, CourseFileJson, CourseJson };

export function presentLevelContent(row: LevelContentRow): LevelContentJson {
  return {
    id: row.id,
    title: row.title,
    title_for_teachers: row.title_for_teachers,
    level_categories_id: row.level_category_id,
    category_title: row.category_title,
  };
}

export interface CourseFileRow {
  id: number;
  course_id: number;
  title: string;
  type: string;
  filename: string;
  size: number | string;
  position: number;
}

export function presentCourseFile(row: CourseFileRow): CourseFileJson {
  return {
    id: row.id,
    title: row.title,
    type: row.type,
    filename: row.filename,
    // bigint comes back as a string from pg.
    size: Number(row.size),
    position: row.position,
    url: pathOf(courseFile, { fileId: row.id }),
  };
}

export function presentCourseText(row: { id: number; title: string; body: string; position: number }): CourseTextJson {
  return { id: row.id, title: row.title, body: row.body, position: row.position };
}

/** A course with its texts and files (the course graph; a new course has neither). */
export function presentCourse(course: {
  id: number;
  title: string;
  position: number;
  texts?: ReadonlyArray<{ id: number; title: string; body: string; position: number }>;
  files?: readonly CourseFileRow[];
}): CourseJson {
  return {
    id: course.id,
    title: course.title,
    position: course.position,
    texts: (course.texts ?? []).map(presentCourseText),
    files: (course.files ?? []).map(presentCourseFile),
  };
}

/** A renamed course: its heading only (PUT /api/level/courses/{courseId}). */
export function presentCourseHeading(course: { id: number; title: string; position: number }): Pick<CourseJson, 'id' | 'title' | 'position'> {
  return { id: course.id, title: course.title, position: course.position };
}
