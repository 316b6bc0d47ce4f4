/**
 * The teachers' level tools (spec §2 admin screens, §7 admin calls; admin flag only): level
 * categories, level content with its courses, texts and files, levels per student. (The
 * selector's group list is GET /api/admin/groups, contract/src/http/admin-groups.ts; downloads
 * are GET /api/level/files/{fileId}, contract/src/http/levels.ts.) Messages are Dutch: the web
 * app shows them next to the fields; the two bulk messages are the exact alert texts of spec §5/§8.
 * An unknown id in the path → 404; an unknown id in a body → 422 on its field.
 */
import { z } from 'zod';
import {
  LEVEL_STATUSES,
  MAX_COURSE_FILE_BYTES,
  adminLevelCategoryJson,
  courseFileJson,
  courseHeadingJson,
  courseJson,
  courseTextJson,
  groupStudentJson,
  levelContentJson,
  levelStatusChangeJson,
  storedStudentLevelJson,
  studentLevelsUpdateJson,
} from '../levels.ts';
import { MISSING_FIELDS_MESSAGE, NO_STUDENTS_MESSAGE } from '../messages.ts';
import { endpoint, json } from './endpoint.ts';
import { databaseId } from './ids.ts';

const ADMINS_ONLY = 'Alleen beheerders kunnen levels beheren.';

/**
 * A positive database id from a path segment or a JSON value (a string of digits counts, as a
 * select's value does); missing or empty answers `missing`, anything else "Ongeldig {label}".
 */
const id = (label: string, missing = MISSING_FIELDS_MESSAGE) => databaseId(missing, `Ongeldig ${label}.`);

const idParams = z.object({ id: id('nummer') });
const categoryIdParams = z.object({ categoryId: id('categorienummer') });
const groupIdParams = z.object({ groupId: id('groepsnummer') });
const courseIdParams = z.object({ courseId: id('cursusnummer') });
const courseTextParams = z.object({ courseId: id('cursusnummer'), textId: id('tekstnummer') });
const courseFileParams = z.object({ courseId: id('cursusnummer'), fileId: id('bestandsnummer') });

/** Icons flag: the spec keeps it as 0/1; a checkbox sends a boolean. */
const iconsFlag = z
  .union([z.boolean(), z.literal(0), z.literal(1), z.literal('0'), z.literal('1')], {
    error: 'Icoontjes moet ja of nee zijn.',
  })
  .transform((value) => value === true || value === 1 || value === '1');

/** POST /api/level/categories/store and /update/{id}. */
export const categoryBody = z.object({
  title: z.string({ error: 'Vul een titel in.' }).trim().min(1, 'Vul een titel in.').max(100, 'De titel mag hoogstens 100 tekens hebben.'),
  number: z.coerce
    .number({ error: 'Vul een aantal in.' })
    .int('Het aantal moet een heel getal zijn.')
    .min(1, 'Het aantal moet minstens 1 zijn.')
    .max(50, 'Het aantal mag hoogstens 50 zijn.'),
  icons: iconsFlag.default(false),
});

const optionalText = (max: number, message: string) =>
  z
    .string({ error: message })
    .trim()
    .max(max, message)
    .nullish()
    .transform((value) => (value ? value : null));

/** POST /api/level/content/store and /update/{id}. */
export const contentBody = z.object({
  title: z
    .string({ error: 'Vul een titel voor studenten in.' })
    .trim()
    .min(1, 'Vul een titel voor studenten in.')
    .max(200, 'De titel mag hoogstens 200 tekens hebben.'),
  title_for_teachers: optionalText(200, 'De titel voor docenten mag hoogstens 200 tekens hebben.'),
  level_categories_id: id('categorienummer', 'Kies een categorie.'),
});
export type ContentBody = z.infer<typeof contentBody>;

/** A title of a course, a text or a file (1..200 characters). */
const title = () => z.string({ error: 'Vul een titel in.' }).trim().min(1, 'Vul een titel in.').max(200, 'De titel mag hoogstens 200 tekens hebben.');

/** Courses, texts and files of level content (beyond the spec; the content edit page). */
export const courseBody = z.object({ title: title() });

export const courseTextBody = z.object({
  title: title(),
  body: z.string({ error: 'De tekst ontbreekt.' }).max(100_000, 'De tekst mag hoogstens 100.000 tekens hebben.').default(''),
});

export const courseFileRenameBody = z.object({ title: title() });

export const moveBody = z.object({
  direction: z.enum(['up', 'down'], { error: "Richting moet 'up' of 'down' zijn." }),
});

/** Query of POST /api/level/courses/{courseId}/files (the body is the file itself). */
export const courseFileUploadQuery = z.object({
  title: title(),
  filename: z
    .string({ error: 'De bestandsnaam ontbreekt.' })
    .trim()
    .min(1, 'De bestandsnaam ontbreekt.')
    .max(200, 'De bestandsnaam mag hoogstens 200 tekens hebben.')
    // Only a name: no folders, no control characters (it ends up in a download header).
    .refine(
      (name) => !/[/\\]/.test(name) && ![...name].some((c) => c.charCodeAt(0) < 32 || c.charCodeAt(0) === 127) && name !== '..',
      'Ongeldige bestandsnaam.',
    ),
});

const status = z.preprocess(
  (value) => (value === '' || value === null ? undefined : value),
  z.enum(LEVEL_STATUSES, {
    error: (issue) => (issue.input === undefined ? MISSING_FIELDS_MESSAGE : 'Kies een geldige status (locked, open of success).'),
  }),
);

/** POST /api/level/update/multiple: the bulk forms below each category table. */
export const bulkLevelBody = z.object({
  level: id('levelnummer'),
  status,
  category_id: id('categorienummer'),
  // Present only in the content variant ('Levelinhoud wijzigen').
  content_id: id('levelinhoudnummer').optional(),
  ids: z
    .array(id('studentnummer'), { error: NO_STUDENTS_MESSAGE })
    .min(1, NO_STUDENTS_MESSAGE)
    .max(1000, 'Te veel studenten in één keer.')
    .transform((ids) => [...new Set(ids)]),
});

/** POST /api/level/update-status: `level` is the level record's id. */
export const levelStatusBody = z.object({
  level: id('levelnummer'),
  status,
});

/**
 * POST /api/level/store: a teacher picks content in a cell. `number` is the level number (the
 * column); `level` is accepted as the same number (or null) for the original client's payload.
 */
export const levelStoreBody = z
  .object({
    level: z.union([z.number(), z.string(), z.null()]).optional(),
    number: id('levelnummer'),
    // null clears the content of an existing record.
    content_id: z.union([z.null(), id('levelinhoudnummer')]),
    category_id: id('categorienummer'),
    user: id('studentnummer'),
  })
  .refine((input) => input.level === undefined || input.level === null || Number(input.level) === input.number, {
    path: ['level'],
    message: 'Level en nummer horen hetzelfde te zijn.',
  });

const admins = { access: 'admin', refusal: ADMINS_ONLY } as const;

// --- categories ---

export const listAdminLevelCategories = endpoint({
  method: 'GET',
  path: '/api/admin/level/categories',
  ...admins,
  summary: 'Every level category {id, title, number, icons 0/1} with its stored number, by id (GET /api/level/categories/index is the student overview).',
  answer: json(z.array(adminLevelCategoryJson)),
});

export const showLevelCategory = endpoint({
  method: 'GET',
  path: '/api/level/categories/show/:id',
  ...admins,
  summary: 'One level category.',
  params: idParams,
  answer: json(adminLevelCategoryJson),
});

export const storeLevelCategory = endpoint({
  method: 'POST',
  path: '/api/level/categories/store',
  ...admins,
  summary: 'A new level category {title 1..100, number 1..50, icons}: 201 with it.',
  body: categoryBody,
  answer: json(adminLevelCategoryJson),
});

export const updateLevelCategory = endpoint({
  method: 'POST',
  path: '/api/level/categories/update/:id',
  ...admins,
  summary: 'Changes a level category {title, number, icons}; answers it.',
  params: idParams,
  body: categoryBody,
  answer: json(adminLevelCategoryJson),
});

// --- content ---

export const listLevelContents = endpoint({
  method: 'GET',
  path: '/api/level/content/index',
  ...admins,
  summary: 'Every level content item with its category title.',
  answer: json(z.array(levelContentJson)),
});

export const listLevelContentsOfCategory = endpoint({
  method: 'GET',
  path: '/api/level/content/index-by-category/:categoryId',
  ...admins,
  summary: "One category's level content items (the options of the levels table's content selects).",
  params: categoryIdParams,
  answer: json(z.array(levelContentJson)),
});

export const showLevelContent = endpoint({
  method: 'GET',
  path: '/api/level/content/show/:id',
  ...admins,
  summary: 'One level content item.',
  params: idParams,
  answer: json(levelContentJson),
});

export const storeLevelContent = endpoint({
  method: 'POST',
  path: '/api/level/content/store',
  ...admins,
  summary: 'A new level content item {title, title_for_teachers?, level_categories_id}: 201 with it; an unknown category is a 422 on level_categories_id.',
  body: contentBody,
  answer: json(levelContentJson),
});

export const updateLevelContent = endpoint({
  method: 'POST',
  path: '/api/level/content/update/:id',
  ...admins,
  summary: 'Changes a level content item {title, title_for_teachers?, level_categories_id}; answers it.',
  params: idParams,
  body: contentBody,
  answer: json(levelContentJson),
});

// --- courses ---

export const listCourses = endpoint({
  method: 'GET',
  path: '/api/level/content/:id/courses',
  ...admins,
  summary: 'The courses of a level content item with their texts and files, each in teacher order.',
  params: idParams,
  answer: json(z.array(courseJson)),
});

export const addCourse = endpoint({
  method: 'POST',
  path: '/api/level/content/:id/courses',
  ...admins,
  summary: 'A new course {title} at the end of the content: 201 with it.',
  params: idParams,
  body: courseBody,
  answer: json(courseJson),
});

export const renameCourse = endpoint({
  method: 'PUT',
  path: '/api/level/courses/:courseId',
  ...admins,
  summary: 'Renames a course {title}; answers its heading.',
  params: courseIdParams,
  body: courseBody,
  answer: json(courseHeadingJson),
});

export const deleteCourse = endpoint({
  method: 'DELETE',
  path: '/api/level/courses/:courseId',
  ...admins,
  summary: 'Deletes a course with its texts and files (their bytes too): 204.',
  params: courseIdParams,
  answer: { kind: 'empty' },
});

export const moveCourse = endpoint({
  method: 'POST',
  path: '/api/level/courses/:courseId/move',
  ...admins,
  summary: "Moves a course {direction: 'up'|'down'} one place; answers the content's courses.",
  params: courseIdParams,
  body: moveBody,
  answer: json(z.array(courseJson)),
});

// --- texts ---

export const addCourseText = endpoint({
  method: 'POST',
  path: '/api/level/courses/:courseId/texts',
  ...admins,
  summary: 'A new text {title, body (Markdown)} at the end of the course: 201 with it.',
  params: courseIdParams,
  body: courseTextBody,
  answer: json(courseTextJson),
});

export const updateCourseText = endpoint({
  method: 'PUT',
  path: '/api/level/courses/:courseId/texts/:textId',
  ...admins,
  summary: "Changes a course's text {title, body}; answers it (a text of another course: 404).",
  params: courseTextParams,
  body: courseTextBody,
  answer: json(courseTextJson),
});

export const deleteCourseText = endpoint({
  method: 'DELETE',
  path: '/api/level/courses/:courseId/texts/:textId',
  ...admins,
  summary: "Deletes a course's text: 204.",
  params: courseTextParams,
  answer: { kind: 'empty' },
});

export const moveCourseText = endpoint({
  method: 'POST',
  path: '/api/level/courses/:courseId/texts/:textId/move',
  ...admins,
  summary: "Moves a text {direction: 'up'|'down'} one place; answers the course's texts.",
  params: courseTextParams,
  body: moveBody,
  answer: json(z.array(courseTextJson)),
});

// --- files ---

export const uploadCourseFile = endpoint({
  method: 'POST',
  path: '/api/level/courses/:courseId/files',
  ...admins,
  summary: `Uploads a course file: the body is the file's bytes (Content-Type application/octet-stream, not multipart; another type: 415), at most ${MAX_COURSE_FILE_BYTES / 1024 / 1024} MB (413), title and filename in the query; an extension outside COURSE_FILE_TYPES or an empty file is a 422. 201 with the file.`,
  params: courseIdParams,
  query: courseFileUploadQuery,
  answer: json(courseFileJson),
});

export const renameCourseFile = endpoint({
  method: 'PUT',
  path: '/api/level/courses/:courseId/files/:fileId',
  ...admins,
  summary: "Renames a course's file {title}; answers it.",
  params: courseFileParams,
  body: courseFileRenameBody,
  answer: json(courseFileJson),
});

export const deleteCourseFile = endpoint({
  method: 'DELETE',
  path: '/api/level/courses/:courseId/files/:fileId',
  ...admins,
  summary: "Deletes a course's file and its bytes: 204.",
  params: courseFileParams,
  answer: { kind: 'empty' },
});

export const moveCourseFile = endpoint({
  method: 'POST',
  path: '/api/level/courses/:courseId/files/:fileId/move',
  ...admins,
  summary: "Moves a file {direction: 'up'|'down'} one place; answers the course's files.",
  params: courseFileParams,
  body: moveBody,
  answer: json(z.array(courseFileJson)),
});

// --- levels per student ---

export const groupStudentLevels = endpoint({
  method: 'GET',
  path: '/api/users/by-group/:groupId',
  ...admins,
  summary: "One group's students with all their level records (the levels-per-student table, in one answer).",
  params: groupIdParams,
  answer: json(z.array(groupStudentJson)),
});

export const updateStudentLevels = endpoint({
  method: 'POST',
  path: '/api/level/update/multiple',
  ...admins,
  summary:
    'The bulk forms: sets the status (and, with content_id, the content) of level {level} of {category_id} for the students {ids}, creating missing records; answers them and their count. Unknown references are 422s on their fields.',
  body: bulkLevelBody,
  answer: json(studentLevelsUpdateJson),
});

export const updateLevelStatus = endpoint({
  method: 'POST',
  path: '/api/level/update-status',
  ...admins,
  summary: "One cell's status {level (the record's id), status}; answers the status. An unknown level: 404.",
  body: levelStatusBody,
  answer: json(levelStatusChangeJson),
});

export const storeStudentLevel = endpoint({
  method: 'POST',
  path: '/api/level/store',
  ...admins,
  summary:
    "One cell's content {number, content_id (null clears it), category_id, user}: creates the record (locked) when there is none; answers {status, level_content_id, id}.",
  body: levelStoreBody,
  answer: json(storedStudentLevelJson),
});

export const adminLevelEndpoints = [
  listAdminLevelCategories,
  showLevelCategory,
  storeLevelCategory,
  updateLevelCategory,
  listLevelContents,
  listLevelContentsOfCategory,
  showLevelContent,
  storeLevelContent,
  updateLevelContent,
  listCourses,
  addCourse,
  renameCourse,
  deleteCourse,
  moveCourse,
  addCourseText,
  updateCourseText,
  deleteCourseText,
  moveCourseText,
  uploadCourseFile,
  renameCourseFile,
  deleteCourseFile,
  moveCourseFile,
  groupStudentLevels,
  updateStudentLevels,
  updateLevelStatus,
  storeStudentLevel,
];
