/*
 * The database name rule of spec §2/§5, shared by the web form and the control plane (one
 * definition). The student types a suffix of 1–3 letters; the stored name is `u{userId}_{suffix}`.
 * Pure TypeScript: no DOM, no Node APIs.
 */

/** Spec §9: a database name (the student's part) is at most 3 characters. */
export const DATABASE_NAME_MAX_LENGTH = 3;

/** The student's part: 1..3 lowercase letters a-z, nothing else (it ends up inside SQL identifiers). */
export const DATABASE_NAME_PATTERN = /^[a-z]{1,3}$/;

/** Messages for the `db` field (spec §8: shown in red as headings above the form). */
export const DATABASE_NAME_MESSAGES = {
  empty: 'Vul een naam in van 1 tot 3 letters.',
  tooLong: 'De naam mag maximaal 3 letters lang zijn.',
  lettersOnly: 'Gebruik alleen de letters a tot en met z.',
  taken: 'Deze database bestaat al.',
} as const;

/**
 * What the form's input becomes while typing (spec §5): lowercased, everything but a-z stripped,
 * cut to 3 characters.
 */
export function normalizeDatabaseName(input: string): string {
  return input.toLowerCase().replace(/[^a-z]/g, '').slice(0, DATABASE_NAME_MAX_LENGTH);
}

/**
 * The part after the last underscore of a stored name (`u12_abc` → `abc`); the whole name when it
 * has none. Spec §2 compares a new name with this part, or with the whole name.
 */
export function existingSuffix(name: string): string {
  const underscore = name.lastIndexOf('_');
  return underscore === -1 ? name : name.slice(underscore + 1);
}

/**
 * The Dutch message for a proposed name (the student's part, as sent), or null when it may be
 * created. `existingNames` are the user's stored database names (`u12_abc`, or older plain names).
 * Not forgiving on purpose: the server refuses what the form would have stripped (quotes, digits,
 * unicode), so nothing the student did not see gets created.
 */
export function databaseNameProblem(name: string, existingNames: readonly string[]): string | null {
  if (name.length === 0) return DATABASE_NAME_MESSAGES.empty;
  if (!/^[a-z]*$/.test(name)) return DATABASE_NAME_MESSAGES.lettersOnly;
  if (name.length > DATABASE_NAME_MAX_LENGTH) return DATABASE_NAME_MESSAGES.tooLong;
  if (existingNames.some((existing) => existing === name || existingSuffix(existing) === name)) {
    return DATABASE_NAME_MESSAGES.taken;
  }
  return null;
}
