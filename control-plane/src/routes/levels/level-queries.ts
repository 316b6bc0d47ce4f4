import type { Knex } from 'knex';
import type { LevelStatus } from '../../models/Level.ts';

/** A level category row as the level screens need it. */
export interface CategoryRow {
  id: number;
  title: string;
  number: number;
  icons: boolean;
}

/** One per-student level with the titles its tile shows. */
export interface UserLevelRow {
  id: number;
  level_category_id: number;
  number: number;
  status: LevelStatus;
  content_title: string | null;
  first_course_title: string | null;
}

/** Every category, in the order teachers made them. */
export async function loadCategories(knex: Knex): Promise<CategoryRow[]> {
  const rows = await knex('level_categories').select('id', 'title', 'number', 'icons').orderBy('id');
  return rows.map((row: CategoryRow) => ({ ...row, icons: Boolean(row.icons) }));
}

/** All levels of one user with their content title and first course title, in one query. */
export async function loadUserLevels(knex: Knex, userId: number): Promise<UserLevelRow[]> {
  return knex('levels as l')
    .leftJoin('level_contents as lc', 'lc.id', 'l.level_content_id')
    .select(
      'l.id',
      'l.level_category_id',
      'l.number',
      'l.status',
      'lc.title as content_title',
      knex.raw(
        `(select c.title from courses c where c.level_content_id = l.level_content_id
           order by c.position, c.id limit 1) as first_course_title`,
      ),
    )
    .where('l.user_id', userId)
    .orderBy(['l.level_category_id', 'l.number']);
}

/** Category, number and status of every level of one user: what the profile's progress counts. */
export async function loadLevelStatuses(
  knex: Knex,
  userId: number,
): Promise<Array<{ level_category_id: number; number: number; status: LevelStatus }>> {
  return knex('levels').select('level_category_id', 'number', 'status').where('user_id', userId);
}

/** A per-student level with its category and content, for the detail screen. */
export interface LevelDetailRow {
  id: number;
  user_id: number;
  number: number;
  status: LevelStatus;
  level_content_id: number | null;
  category_id: number;
  category_title: string;
  content_title: string | null;
}

export async function loadLevel(knex: Knex, levelId: number): Promise<LevelDetailRow | undefined> {
  return knex('levels as l')
    .join('level_categories as cat', 'cat.id', 'l.level_category_id')
    .leftJoin('level_contents as lc', 'lc.id', 'l.level_content_id')
    .select(
      'l.id',
      'l.user_id',
      'l.number',
      'l.status',
      'l.level_content_id',
      'cat.id as category_id',
      'cat.title as category_title',
      'lc.title as content_title',
    )
    .where('l.id', levelId)
    .first<LevelDetailRow | undefined>();
}

export interface CourseRow {
  id: number;
  title: string;
}
export interface CourseTextRow {
  id: number;
  course_id: number;
  title: string;
  body: string;
}
export interface CourseFileRow {
  id: number;
  course_id: number;
  title: string;
  type: string;
}

/** The courses of a level content with their texts and files, each in teacher order. */
export async function loadCourses(
  knex: Knex,
  contentId: number,
): Promise<{ courses: CourseRow[]; texts: CourseTextRow[]; files: CourseFileRow[] }> {
  const courses: CourseRow[] = await knex('courses')
    .select('id', 'title')
    .where('level_content_id', contentId)
    .orderBy(['position', 'id']);
  const courseIds = courses.map((course) => course.id);
  if (courseIds.length === 0) return { courses, texts: [], files: [] };
  const [texts, files] = await Promise.all([
    knex('course_texts')
      .select('id', 'course_id', 'title', 'body')
      .whereIn('course_id', courseIds)
      .orderBy(['position', 'id']) as Promise<CourseTextRow[]>,
    knex('course_files')
      .select('id', 'course_id', 'title', 'type')
      .whereIn('course_id', courseIds)
      .orderBy(['position', 'id']) as Promise<CourseFileRow[]>,
  ]);
  return { courses, texts, files };
}

/** A stored course file with the level content it belongs to. */
export interface StoredCourseFileRow {
  id: number;
  title: string;
  type: string;
  filename: string;
  storage_key: string;
  size: number | string;
  level_content_id: number;
}

export async function loadCourseFile(knex: Knex, fileId: number): Promise<StoredCourseFileRow | undefined> {
  return knex('course_files as f')
    .join('courses as c', 'c.id', 'f.course_id')
    .select('f.id', 'f.title', 'f.type', 'f.filename', 'f.storage_key', 'f.size', 'c.level_content_id')
    .where('f.id', fileId)
    .first<StoredCourseFileRow | undefined>();
}

/** The statuses of a user's levels that use a given level content (usually zero or one). */
export async function loadStatusesForContent(knex: Knex, userId: number, contentId: number): Promise<LevelStatus[]> {
  const rows: Array<{ status: LevelStatus }> = await knex('levels')
    .select('status')
    .where({ user_id: userId, level_content_id: contentId });
  return rows.map((row) => row.status);
}
