/**
 * The levels' JSON as the control plane sends it and the web app reads it (GET /api/level/*,
 * the admin level screens, the profile's progress block), and the statuses a level can have.
 */
import { z } from 'zod';

/** Statuses a student's level can have (a check constraint holds the same list). */
export const LEVEL_STATUSES = ['locked', 'open', 'success'] as const;
export type LevelStatus = (typeof LEVEL_STATUSES)[number];

/** GET /api/level/{id}: a level with its courses, their texts (Markdown) and files. */
export interface LevelJson {
  id: number;
  number: number;
  status: LevelStatus;
  category: { id: number; title: string };
  content: { title: string } | null;
  courses: Array<{
    id: number;
    title: string;
    texts: Array<{ title: string; text: string }>;
    /** Download at GET /api/level/files/{id}. */
    files: Array<{ id: number; title: string; type: string }>;
  }>;
}

/**
 * One tile of the Levels screen. `id` null is a placeholder for a level that does not exist
 * yet for this student (title '-', locked, not clickable).
 */
export type LevelTileJson =
  | {
      id: number;
      number: number;
      /** First course title of the level's content, else the content title, else '-'. */
      title: string;
      /**
       * 'locked' and 'success' as the spec shows them; 'open' is passed through so the screen
       * shows that tile unlocked and clickable, without an overlay.
       */
      status: LevelStatus;
      content: { title: string } | null;
    }
  | { id: null; number: number; title: '-'; status: 'locked'; content: null };

/** GET /api/level/categories/index: one category with the signed-in user's tiles 1..n. */
export interface LevelCategoryJson {
  id: number;
  title: string;
  /** The category's level count as teachers set it (admin screens show this). */
  number: number;
  /** How many tiles this user sees (the §9 rule applied); `levels` has this many entries. */
  shownNumber: number;
  icons: boolean;
  levels: LevelTileJson[];
}

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
export interface AdminLevelCategoryJson {
  id: number;
  title: string;
  number: number;
  icons: 0 | 1;
}

/** Level content item of spec §3. */
export interface LevelContentJson {
  id: number;
  title: string;
  title_for_teachers: string | null;
  level_categories_id: number;
  category_title: string;
}

export interface CourseTextJson {
  id: number;
  title: string;
  body: string;
  position: number;
}

export interface CourseFileJson {
  id: number;
  title: string;
  type: string;
  filename: string;
  size: number;
  position: number;
  /** Download address (served by the student level routes, for users who may see the level). */
  url: string;
}

export interface CourseJson {
  id: number;
  title: string;
  position: number;
  texts: CourseTextJson[];
  files: CourseFileJson[];
}

/** A student's level record (spec §3 "Level (per student, admin)"). */
export interface StudentLevelJson {
  id: number;
  user_id: number;
  number: number;
  status: LevelStatus;
  level_category_id: number;
  level_content_id: number | null;
}

/** A student of a group with their level records (the admin "Levels per student" table). */
export interface GroupStudentJson {
  id: number;
  name: string;
  email: string;
  levels: StudentLevelJson[];
}

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
