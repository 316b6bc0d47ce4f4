import type { Knex } from 'knex';
import type { LevelStatus, StudentLevelJson } from '@devplein/contract/levels';
import { Course } from '../models/Course.ts';
import { CourseFile } from '../models/CourseFile.ts';
import { CourseText } from '../models/CourseText.ts';
import { Level } from '../models/Level.ts';
import { LevelCategory } from '../models/LevelCategory.ts';
import { LevelContent } from '../models/LevelContent.ts';

/** A level content row joined with its category's title. */
export interface LevelContentRow {
  id: number;
  title: string;
  title_for_teachers: string | null;
  level_category_id: number;
  category_title: string;
}

/**
 * Reads of the levels area. The hand-tuned set reads stay knex: the levels-per-student table, a
 * user's tiles with their titles, joined lists, the course graph (courses with texts and files:
 * withGraphFetched measured slower) and what the students' pages ask on every request. Single
 * entities for the teachers' tools go through the models.
 */

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

/** A course of level content with its texts and files, each in teacher order (the course graph). */
export interface CourseGraph {
  id: number;
  title: string;
  position: number;
  texts: Array<{ id: number; course_id: number; title: string; body: string; position: number }>;
  files: Array<{ id: number; course_id: number; title: string; type: string; filename: string; size: number | string; position: number }>;
}

const BY_POSITION = [{ column: 'position' }, { column: 'id' }];

/**
 * The courses of a level content with their texts and files, each in teacher order: three
 * queries (courses, then texts and files of all of them at once), nested here. Hand-tuned on
 * purpose: Course.withGraphFetched('[texts, files]') sends the same three queries but measured
 * about 50 % slower (8 courses, 40 texts, 24 files: 4.5 → 6.9 ms on PostgreSQL, 5.3 → 7.6 ms on
 * PGlite), and this is the students' level page.
 */
export async function loadCourseGraph(knex: Knex, contentId: number): Promise<CourseGraph[]> {
  const courses: Array<{ id: number; title: string; position: number }> = await knex('courses')
    .select('id', 'title', 'position')
    .where('level_content_id', contentId)
    .orderBy(BY_POSITION);
  if (courses.length === 0) return [];
  const courseIds = courses.map((course) => course.id);
  const [texts, files] = await Promise.all([
    knex('course_texts')
      .select('id', 'course_id', 'title', 'body', 'position')
      .whereIn('course_id', courseIds)
      .orderBy(BY_POSITION) as Promise<CourseGraph['texts']>,
    knex('course_files')
      .select('id', 'course_id', 'title', 'type', 'filename', 'size', 'position')
      .whereIn('course_id', courseIds)
      .orderBy(BY_POSITION) as Promise<CourseGraph['files']>,
  ]);
  const graph = new Map<number, CourseGraph>(courses.map((course) => [course.id, { ...course, texts: [], files: [] }]));
  for (const text of texts) graph.get(text.course_id)?.texts.push(text);
  for (const file of files) graph.get(file.course_id)?.files.push(file);
  return [...graph.values()];
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
  // knex, not Level.query(): every student download asks this; a model query measured ~0.15 ms more.
  const rows: Array<{ status: LevelStatus }> = await knex('levels')
    .select('status')
    .where({ user_id: userId, level_content_id: contentId });
  return rows.map((row) => row.status);
}

// --- the teachers' level tools ---

const CATEGORY_COLUMNS = ['id', 'title', 'number', 'icons'] as const;

/** Every category with its stored number, ordered by id (the admin list). */
export async function listLevelCategories(knex: Knex): Promise<LevelCategory[]> {
  return LevelCategory.query(knex).select(...CATEGORY_COLUMNS).orderBy('id');
}

export async function findLevelCategory(knex: Knex, id: number): Promise<LevelCategory | undefined> {
  return LevelCategory.query(knex).select(...CATEGORY_COLUMNS).findById(id);
}

const CONTENT_COLUMNS = ['lc.id', 'lc.title', 'lc.title_for_teachers', 'lc.level_category_id', 'cat.title as category_title'];

/** Level content joined with its category title, ordered by category then id. */
function contentQuery(knex: Knex): Knex.QueryBuilder {
  return knex('level_contents as lc')
    .join('level_categories as cat', 'cat.id', 'lc.level_category_id')
    .orderBy([{ column: 'lc.level_category_id' }, { column: 'lc.id' }]);
}

/** Every level content, or those of one category, with the category title. */
export async function listLevelContents(knex: Knex, categoryId?: number): Promise<LevelContentRow[]> {
  const query = categoryId === undefined ? contentQuery(knex) : contentQuery(knex).where('lc.level_category_id', categoryId);
  return query.select<LevelContentRow[]>(CONTENT_COLUMNS);
}

export async function findLevelContentRow(knex: Knex, id: number): Promise<LevelContentRow | undefined> {
  return contentQuery(knex).where('lc.id', id).first<LevelContentRow | undefined>(CONTENT_COLUMNS);
}

export async function levelContentExists(knex: Knex, id: number): Promise<boolean> {
  return (await LevelContent.query(knex).select('id').findById(id)) !== undefined;
}

export async function levelCategoryExists(knex: Knex, id: number): Promise<boolean> {
  return (await LevelCategory.query(knex).select('id').findById(id)) !== undefined;
}

export async function findCourse(knex: Knex, courseId: number): Promise<Course | undefined> {
  return Course.query(knex).findById(courseId);
}

export async function findCourseText(knex: Knex, courseId: number, textId: number): Promise<CourseText | undefined> {
  return CourseText.query(knex).findOne({ id: textId, course_id: courseId });
}

export async function findCourseFile(knex: Knex, courseId: number, fileId: number): Promise<CourseFile | undefined> {
  return CourseFile.query(knex).findOne({ id: fileId, course_id: courseId });
}

/** The texts of one course in teacher order. */
export async function listCourseTexts(knex: Knex, courseId: number): Promise<CourseText[]> {
  return CourseText.query(knex).where({ course_id: courseId }).orderBy(BY_POSITION);
}

/** The files of one course in teacher order (without their storage keys). */
export async function listCourseFiles(knex: Knex, courseId: number): Promise<CourseFile[]> {
  return CourseFile.query(knex)
    .where({ course_id: courseId })
    .select('id', 'course_id', 'title', 'type', 'filename', 'size', 'position')
    .orderBy(BY_POSITION);
}

/** What a level change names, as stored: the category's number, the content's category, the users found. */
export interface LevelReferences {
  category: { number: number } | undefined;
  content: { level_category_id: number } | undefined;
  foundUserIds: number[];
}

export async function loadLevelReferences(
  knex: Knex,
  refs: { categoryId: number; contentId?: number | null; userIds: readonly number[] },
): Promise<LevelReferences> {
  const category = await LevelCategory.query(knex).select('number').findById(refs.categoryId);
  const content =
    refs.contentId === undefined || refs.contentId === null
      ? undefined
      : await LevelContent.query(knex).select('level_category_id').findById(refs.contentId);
  const foundUserIds = await knex('users').whereIn('id', refs.userIds).pluck<number[]>('id');
  return { category, content, foundUserIds };
}

/** Whether the student already has level `number` of the category (a record, whatever its content). */
export async function studentLevelExists(knex: Knex, cell: { userId: number; categoryId: number; number: number }): Promise<boolean> {
  const row = await Level.query(knex)
    .select('id')
    .findOne({ user_id: cell.userId, level_category_id: cell.categoryId, number: cell.number });
  return row !== undefined;
}

/** A group's active students (name order) with all their levels: the levels-per-student table. */
export interface GroupStudentLevels {
  user: { id: number; name: string; email: string };
  levels: StudentLevelRow[];
}

/** A per-student level cell as the table and the level changes answer it. */
export type StudentLevelRow = StudentLevelJson;

const LEVEL_COLUMNS = ['id', 'user_id', 'number', 'status', 'level_category_id', 'level_content_id'] as const;

/**
 * The whole table of a group in two queries, whatever the number of students or levels;
 * undefined when the group does not exist.
 */
export async function loadGroupStudentLevels(knex: Knex, groupId: number): Promise<GroupStudentLevels[] | undefined> {
  const group = await knex('groups').where({ id: groupId }).first('id');
  if (!group) return undefined;
  const users = await knex('users')
    .where({ group_id: groupId })
    .whereNull('disabled_at')
    .orderBy([{ column: 'name' }, { column: 'email' }, { column: 'id' }])
    .select<Array<{ id: number; name: string; email: string }>>('id', 'name', 'email');
  const levels = await knex('levels')
    .whereIn(
      'user_id',
      users.map((user) => user.id),
    )
    .orderBy([{ column: 'level_category_id' }, { column: 'number' }])
    .select<StudentLevelRow[]>(LEVEL_COLUMNS);
  const byUser = new Map<number, StudentLevelRow[]>();
  for (const level of levels) {
    const list = byUser.get(level.user_id);
    if (list) list.push(level);
    else byUser.set(level.user_id, [level]);
  }
  return users.map((user) => ({ user, levels: byUser.get(user.id) ?? [] }));
}
