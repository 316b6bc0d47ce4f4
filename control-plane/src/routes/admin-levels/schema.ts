import { COURSE_FILE_TYPES, MAX_COURSE_FILE_BYTES } from '@devplein/contract/levels';
import { z } from 'zod';
import { databaseId } from '@devplein/contract/http/ids';
import { LEVEL_STATUSES } from '@devplein/contract/levels';
import { MISSING_FIELDS_MESSAGE, NO_STUDENTS_MESSAGE } from '@devplein/contract/messages';

/*
 * Input of the teachers' level tools. Messages are Dutch: the web app shows them next to the
 * fields. The two bulk messages are the exact alert texts of spec §5/§8.
 */

export const MISSING_FIELDS = MISSING_FIELDS_MESSAGE;
export const NO_STUDENTS = NO_STUDENTS_MESSAGE;

/**
 * A positive database id from a path segment or a JSON value (a string of digits counts, as a
 * select's value does); missing or empty answers `missing`, anything else "Ongeldig {label}".
 */
const id = (label: string, missing = MISSING_FIELDS) => databaseId(missing, `Ongeldig ${label}.`);

export const idParams = z.object({ id: id('nummer') });
export const categoryIdParams = z.object({ categoryId: id('categorienummer') });
export const groupIdParams = z.object({ groupId: id('groepsnummer') });
export const courseIdParams = z.object({ courseId: id('cursusnummer') });
export const courseTextParams = z.object({ courseId: id('cursusnummer'), textId: id('tekstnummer') });
export const courseFileParams = z.object({ courseId: id('cursusnummer'), fileId: id('bestandsnummer') });

/** Icons flag: the spec keeps it as 0/1; a checkbox sends a boolean. */
const iconsFlag = z.union([z.boolean(), z.literal(0), z.literal(1), z.literal('0'), z.literal('1')], {
  error: 'Icoontjes moet ja of nee zijn.',
}).transform((value) => value === true || value === 1 || value === '1');

/** POST /api/level/categories/store and /update/{id}. */
export const categoryInput = z.object({
  title: z
    .string({ error: 'Vul een titel in.' })
    .trim()
    .min(1, 'Vul een titel in.')
    .max(100, 'De titel mag hoogstens 100 tekens hebben.'),
  number: z.coerce
    .number({ error: 'Vul een aantal in.' })
    .int('Het aantal moet een heel getal zijn.')
    .min(1, 'Het aantal moet minstens 1 zijn.')
    .max(50, 'Het aantal mag hoogstens 50 zijn.'),
  icons: iconsFlag.default(false),
});
export type CategoryInput = z.infer<typeof categoryInput>;

const optionalText = (max: number, message: string) =>
  z
    .string({ error: message })
    .trim()
    .max(max, message)
    .nullish()
    .transform((value) => (value ? value : null));

/** POST /api/level/content/store and /update/{id}. */
export const contentInput = z.object({
  title: z
    .string({ error: 'Vul een titel voor studenten in.' })
    .trim()
    .min(1, 'Vul een titel voor studenten in.')
    .max(200, 'De titel mag hoogstens 200 tekens hebben.'),
  title_for_teachers: optionalText(200, 'De titel voor docenten mag hoogstens 200 tekens hebben.'),
  level_categories_id: id('categorienummer', 'Kies een categorie.'),
});
export type ContentInput = z.infer<typeof contentInput>;

/** Courses, texts and files of level content (beyond the spec; the content edit page). */
export const courseInput = z.object({
  title: z.string({ error: 'Vul een titel in.' }).trim().min(1, 'Vul een titel in.').max(200, 'De titel mag hoogstens 200 tekens hebben.'),
});

export const courseTextInput = z.object({
  title: z.string({ error: 'Vul een titel in.' }).trim().min(1, 'Vul een titel in.').max(200, 'De titel mag hoogstens 200 tekens hebben.'),
  body: z.string({ error: 'De tekst ontbreekt.' }).max(100_000, 'De tekst mag hoogstens 100.000 tekens hebben.').default(''),
});

export const courseFileRename = z.object({
  title: z.string({ error: 'Vul een titel in.' }).trim().min(1, 'Vul een titel in.').max(200, 'De titel mag hoogstens 200 tekens hebben.'),
});

export const moveInput = z.object({
  direction: z.enum(['up', 'down'], { error: "Richting moet 'up' of 'down' zijn." }),
});

/** Query of POST /api/level/courses/{courseId}/files (the body is the file itself). */
export const courseFileUploadQuery = z.object({
  title: z.string({ error: 'Vul een titel in.' }).trim().min(1, 'Vul een titel in.').max(200, 'De titel mag hoogstens 200 tekens hebben.'),
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

export { COURSE_FILE_TYPES, MAX_COURSE_FILE_BYTES };

const status = z.preprocess(
  (value) => (value === '' || value === null ? undefined : value),
  z.enum(LEVEL_STATUSES, {
    error: (issue) => (issue.input === undefined ? MISSING_FIELDS : 'Kies een geldige status (locked, open of success).'),
  }),
);

/** POST /api/level/update/multiple: the bulk forms below each category table. */
export const bulkLevelInput = z.object({
  level: id('levelnummer'),
  status,
  category_id: id('categorienummer'),
  // Present only in the content variant ('Levelinhoud wijzigen').
  content_id: id('levelinhoudnummer').optional(),
  ids: z
    .array(id('studentnummer'), { error: NO_STUDENTS })
    .min(1, NO_STUDENTS)
    .max(1000, 'Te veel studenten in één keer.')
    .transform((ids) => [...new Set(ids)]),
});
export type BulkLevelInput = z.infer<typeof bulkLevelInput>;

/** POST /api/level/update-status: `level` is the level record's id. */
export const levelStatusInput = z.object({
  level: id('levelnummer'),
  status,
});

/**
 * POST /api/level/store: a teacher picks content in a cell. `number` is the level number (the
 * column); `level` is accepted as the same number (or null) for the original client's payload.
 */
export const levelStoreInput = z
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
