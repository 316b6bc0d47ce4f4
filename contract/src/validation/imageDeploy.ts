import { z } from 'zod';

/*
 * Where a git deploy puts a project's code, per image option (issue 23): the folder in the
 * container that becomes the repository's tree (none: git deploy is not offered for the option),
 * an optional command after each update, the paths that survive an update, and an optional build
 * step. One definition for the admin form and the control plane; the agent checks the paths again
 * before it writes.
 */

/** What an image option says about git deploys (the JSON of the admin images API). */
export const imageDeploySettingsJson = z.strictObject({
  /** Absolute folder in the container that the repository replaces; null: no git deploy for this option. */
  webRoot: z.string().nullable(),
  /** Shell command after each update, run as the container's unprivileged user (e.g. `composer install --no-dev`). */
  afterUpdate: z.string().nullable(),
  /** Paths under the web root that an update keeps (uploads, local configuration). */
  keepPaths: z.array(z.string()),
  /** Optional build step: its command and the folder (in the repository) that becomes the site. */
  buildCommand: z.string().nullable(),
  buildOutput: z.string().nullable(),
});
export type ImageDeploySettings = z.infer<typeof imageDeploySettingsJson>;

export const NO_DEPLOY: ImageDeploySettings = { webRoot: null, afterUpdate: null, keepPaths: [], buildCommand: null, buildOutput: null };

/** What WordPress and similar PHP sites keep between deploys: uploads and local settings. */
export const PHP_KEEP_PATHS: readonly string[] = ['wp-content/uploads', 'wp-config.php', '.env'];

export const MAX_KEEP_PATHS = 20;
export const MAX_COMMAND_LENGTH = 500;

export const WEB_ROOT_MESSAGE = 'Geef een map in de container als absoluut pad, zoals /var/www/html (geen systeemmap, geen ..).';
export const KEEP_PATH_MESSAGE = 'Geef paden binnen de webroot, zoals wp-content/uploads (niet beginnend met /, geen ..).';
export const COMMAND_MESSAGE = `Een opdracht is één regel van hoogstens ${MAX_COMMAND_LENGTH} tekens.`;
export const BUILD_PAIR_MESSAGE = 'Geef bij een bouwopdracht ook de map met het resultaat, zoals dist (en andersom).';

/** Folders a deploy may never replace: the container's own system. */
const SYSTEM_FOLDERS: ReadonlySet<string> = new Set(['/', '/bin', '/boot', '/dev', '/etc', '/home', '/lib', '/lib32', '/lib64', '/proc', '/root', '/run', '/sbin', '/sys', '/tmp', '/usr', '/var']);

const SAFE_PATH = /^[A-Za-z0-9._@+-]+(\/[A-Za-z0-9._@+-]+)*$/;
const hasDotSegment = (path: string) => path.split('/').some((segment) => segment === '.' || segment === '..');

/** '/var/www/html' (a trailing slash dropped) when the folder is allowed; null when it is not. */
export function normalizeWebRoot(value: string): string | null {
  const path = value.trim().replace(/\/+$/, '');
  if (!path.startsWith('/') || path.length > 200) return null;
  const inner = path.slice(1);
  if (!SAFE_PATH.test(inner) || hasDotSegment(inner) || SYSTEM_FOLDERS.has(path)) return null;
  return path;
}

/** 'wp-content/uploads' when it is a relative path inside the web root; null when it is not. */
export function normalizeRelativePath(value: string): string | null {
  const path = value.trim().replace(/\/+$/, '');
  if (path.length === 0 || path.length > 200 || !SAFE_PATH.test(path) || hasDotSegment(path)) return null;
  return path;
}

const hasControlCharacter = (text: string) => [...text].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f);

/** An empty text is "none". */
const optionalText = (text: string | null | undefined) => (text === undefined || text === null || text.trim() === '' ? null : text.trim());

const command = z
  .string({ error: COMMAND_MESSAGE })
  .nullable()
  .optional()
  .transform(optionalText)
  // One line, no control characters: it is shown in a table and run through `sh -c`.
  .refine((text) => text === null || (text.length <= MAX_COMMAND_LENGTH && !hasControlCharacter(text)), COMMAND_MESSAGE);

/** An optional path: empty is none, else normalized by `normalize` or refused with `message`. */
const optionalPath = (normalize: (path: string) => string | null, message: string) =>
  z
    .string({ error: message })
    .nullable()
    .optional()
    .transform(optionalText)
    .refine((path) => path === null || normalize(path) !== null, message)
    .transform((path) => (path === null ? null : normalize(path)));

/**
 * Whether the pair check can run: the settings are an object and the build fields themselves
 * parsed. (`when` runs the check despite other issues, so it must not assume the shape.)
 */
function buildFieldsParsed(payload: { value: unknown; issues: ReadonlyArray<{ path?: PropertyKey[] }> }): boolean {
  if (typeof payload.value !== 'object' || payload.value === null || Array.isArray(payload.value)) return false;
  return !payload.issues.some((issue) => issue.path?.length === 0 || issue.path?.[0] === 'buildCommand' || issue.path?.[0] === 'buildOutput');
}

/** The deploy settings as the admin sends them; the transform stores the normalized paths. */
export const imageDeploySchema = z
  .object({
    webRoot: optionalPath(normalizeWebRoot, WEB_ROOT_MESSAGE),
    afterUpdate: command,
    keepPaths: z
      .array(z.string({ error: KEEP_PATH_MESSAGE }), { error: KEEP_PATH_MESSAGE })
      .max(MAX_KEEP_PATHS, `Hoogstens ${MAX_KEEP_PATHS} paden.`)
      .optional()
      .transform((paths) => (paths ?? []).map((path) => path.trim()).filter((path) => path !== ''))
      .refine((paths) => paths.every((path) => normalizeRelativePath(path) !== null), KEEP_PATH_MESSAGE)
      .transform((paths) => [...new Set(paths.map((path) => normalizeRelativePath(path) as string))]),
    buildCommand: command,
    buildOutput: optionalPath(normalizeRelativePath, KEEP_PATH_MESSAGE),
  })
  // Checked even when another field is wrong, so the form shows every mistake at once.
  .refine((settings) => settings.buildCommand === null || settings.buildOutput !== null, { message: BUILD_PAIR_MESSAGE, path: ['buildOutput'], when: buildFieldsParsed })
  .refine((settings) => settings.buildOutput === null || settings.buildCommand !== null, { message: BUILD_PAIR_MESSAGE, path: ['buildCommand'], when: buildFieldsParsed });

export type ImageDeployInput = z.input<typeof imageDeploySchema>;
