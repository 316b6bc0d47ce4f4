/**
 * The levels' JSON as the control plane sends it and the web app reads it (GET /api/level/*,
 * the admin level screens, the profile's progress block), and the statuses a level can have.
 */
import { z } from 'zod';

/** Statuses a student's level can have (a check constraint holds the same list). */
export const LEVEL_STATUSES = ['locked', 'open', 'success'] as const;
export type LevelStatus = (typeof LEVEL_STATUSES)[number];

/** A level's status as JSON. */
export const levelStatusJson = z.enum(LEVEL_STATUSES);

/** GET /api/level/{id}: a level with its courses, their texts (Markdown) and files. */
export const levelJson = z.strictObject({
  id: z.number().int(),
  number: z.number().int(),
  status: levelStatusJson,
  category: z.strictObject({ id: z.number().int(), title: z.string() }),
  content: z.strictObject({ title: z.string() }).nullable(),
  courses: z.array(
    z.strictObject({
      id: z.number().int(),
      title: z.string(),
      texts: z.array(z.strictObject({ title: z.string(), text: z.string() })),
      /** Download at GET /api/level/files/{id}. */
      files: z.array(z.strictObject({ id: z.number().int(), title: z.string(), type: z.string() })),
    }),
  ),
});
export type LevelJson = z.infer<typeof levelJson>;

/**
 * One tile of the Levels screen. `id` null is a placeholder for a level that does not exist
 * yet for this student (title '-', locked, not clickable).
 */
export const levelTileJson = z.union([
  z.strictObject({
    id: z.number().int(),
    number: z.number().int(),
    /** First course title of the level's content, else the content title, else '-'. */
    title: z.string(),
    /**
     * 'locked' and 'success' as the spec shows them; 'open' is passed through so the screen
     * shows that tile unlocked and clickable, without an overlay.
     */
    status: levelStatusJson,
    content: z.strictObject({ title: z.string() }).nullable(),
  }),
  z.strictObject({ id: z.null(), number: z.number().int(), title: z.literal('-'), status: z.literal('locked'), content: z.null() }),
]);
export type LevelTileJson = z.infer<typeof levelTileJson>;

/** GET /api/level/categories/index: one category with the signed-in user's tiles 1..n. */
export const levelCategoryJson = z.strictObject({
  id: z.number().int(),
  title: z.string(),
  /** The category's level count as teachers set it (admin screens show this). */
  number: z.number().int(),
  /** How many tiles this user sees (the §9 rule applied); `levels` has this many entries. */
  shownNumber: z.number().int(),
  icons: z.boolean(),
  levels: z.array(levelTileJson),
});
export type LevelCategoryJson = z.infer<typeof levelCategoryJson>;

/** One line of the profile's progress block: '{title} afgerond', finished of number (§9 rule applied). */
export const levelCategoryProgressJson = z.strictObject({
  id: z.number().int(),
  title: z.string(),
  /** Levels with status success among 1..number. */
  finished: z.number().int(),
  /** The level count shown for this user (the §9 rule applied). */
  number: z.number().int(),
});
export type LevelCategoryProgressJson = z.infer<typeof levelCategoryProgressJson>;

/** A level category on the admin screens; `icons` is the 0/1 flag of spec §3. */
export const adminLevelCategoryJson = z.strictObject({
  id: z.number().int(),
  title: z.string(),
  number: z.number().int(),
  icons: z.union([z.literal(0), z.literal(1)]),
});
export type AdminLevelCategoryJson = z.infer<typeof adminLevelCategoryJson>;

/** Level content item of spec §3. */
export const levelContentJson = z.strictObject({
  id: z.number().int(),
  title: z.string(),
  title_for_teachers: z.string().nullable(),
  level_categories_id: z.number().int(),
  category_title: z.string(),
});
export type LevelContentJson = z.infer<typeof levelContentJson>;

export const courseTextJson = z.strictObject({
  id: z.number().int(),
  title: z.string(),
  body: z.string(),
  position: z.number().int(),
});
export type CourseTextJson = z.infer<typeof courseTextJson>;

export const courseFileJson = z.strictObject({
  id: z.number().int(),
  title: z.string(),
  type: z.string(),
  filename: z.string(),
  size: z.number().int(),
  position: z.number().int(),
  /** Download address (served by the student level routes, for users who may see the level). */
  url: z.string(),
});
export type CourseFileJson = z.infer<typeof courseFileJson>;

/** A course's heading: what renaming it answers. */
export const courseHeadingJson = z.strictObject({
  id: z.number().int(),
  title: z.string(),
  position: z.number().int(),
});
export type CourseHeadingJson = z.infer<typeof courseHeadingJson>;

export const courseJson = z.strictObject({
  id: z.number().int(),
  title: z.string(),
  position: z.number().int(),
  texts: z.array(courseTextJson),
  files: z.array(courseFileJson),
});
export type CourseJson = z.infer<typeof courseJson>;

/** A student's level record (spec §3 "Level (per student, admin)"). */
export const studentLevelJson = z.strictObject({
  id: z.number().int(),
  user_id: z.number().int(),
  number: z.number().int(),
  status: levelStatusJson,
  level_category_id: z.number().int(),
  level_content_id: z.number().int().nullable(),
});
export type StudentLevelJson = z.infer<typeof studentLevelJson>;

/** A student of a group with their level records (the admin "Levels per student" table). */
export const groupStudentJson = z.strictObject({
  id: z.number().int(),
  name: z.string(),
  email: z.string(),
  levels: z.array(studentLevelJson),
});
export type GroupStudentJson = z.infer<typeof groupStudentJson>;

/** The answer of a bulk level change (POST /api/level/update/multiple): how many records, and them. */
export const studentLevelsUpdateJson = z.strictObject({
  updated: z.number().int(),
  levels: z.array(studentLevelJson),
});
export type StudentLevelsUpdateJson = z.infer<typeof studentLevelsUpdateJson>;

/** The answer of one cell's content change (POST /api/level/store). */
export const storedStudentLevelJson = z.strictObject({
  status: levelStatusJson,
  level_content_id: z.number().int().nullable(),
  id: z.number().int(),
});
export type StoredStudentLevelJson = z.infer<typeof storedStudentLevelJson>;

/** The answer of one level's status change (POST /api/level/update-status). */
export const levelStatusChangeJson = z.strictObject({ status: levelStatusJson });
export type LevelStatusChangeJson = z.infer<typeof levelStatusChangeJson>;

/** Largest course file a teacher may upload. */
export const MAX_COURSE_FILE_BYTES = 10 * 1024 * 1024;

/** Allowed course file extensions and the type shown to students. */
export const COURSE_FILE_TYPES: Readonly<Record<string, string>> = {
  pdf: 'PDF',
  zip: 'ZIP',
  png: 'PNG',
  jpg: 'JPG',
  jpeg: 'JPG',
  txt: 'TXT',
  md: 'Markdown',
  docx: 'Word',
  pptx: 'PowerPoint',
  xlsx: 'Excel',
};

/** The allowed course file extensions, in the order the upload form lists them. */
export const COURSE_FILE_EXTENSIONS: readonly string[] = Object.keys(COURSE_FILE_TYPES);

/** A course file whose extension is not allowed. */
export const courseFileTypeRefused = (): string => `Dit soort bestand kan niet. Toegestaan: ${COURSE_FILE_EXTENSIONS.join(', ')}.`;
