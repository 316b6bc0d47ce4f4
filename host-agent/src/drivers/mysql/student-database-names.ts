/**
 * Names of student databases and accounts as the agent lets them reach SQL. Identifiers cannot
 * be bound as parameters, so they are whitelisted first and only then quoted; in GRANT the
 * database name is a pattern in which `_` and `%` are wildcards, so those are escaped there
 * (otherwise a grant on `u1_abc` would also open `u1xabc`).
 */

/**
 * Database and account names the agent accepts: the student form `u{userId}_{suffix}` the
 * control plane makes (a positive id without leading zero, 1-3 letters a-z, spec §9), and
 * nothing else. So even a control plane that is not itself any more cannot create, drop, lock or
 * unlock another schema or account of the server (the agent's own admin account, phpMyAdmin's,
 * a sysadmin's database): at most the students' own.
 */
export const STUDENT_NAME = /^u[1-9][0-9]{0,15}_[a-z]{1,3}$/;
/** MariaDB account names may be 80 characters, MySQL's 32: stay inside both. */
export const MAX_USER_LENGTH = 32;

/** Schemas of the server itself: never listed, created or dropped. */
const SYSTEM_SCHEMAS = new Set(['mysql', 'information_schema', 'performance_schema', 'sys', 'test']);

export class StudentNameError extends Error {
  override name = 'StudentNameError';
}

/** The database name, or a StudentNameError saying why not. */
export function checkDatabaseName(name: string): string {
  if (!STUDENT_NAME.test(name)) throw new StudentNameError(`database name ${JSON.stringify(name.slice(0, 70))} is not of the student form u{id}_{abc} (${STUDENT_NAME.source})`);
  if (SYSTEM_SCHEMAS.has(name)) throw new StudentNameError(`${name} is a system database`);
  return name;
}

/** The account name, or a StudentNameError saying why not. */
export function checkUserName(user: string): string {
  if (!STUDENT_NAME.test(user) || user.length > MAX_USER_LENGTH) {
    throw new StudentNameError(`user name ${JSON.stringify(user.slice(0, 70))} is not of the student form u{id}_{abc} (${STUDENT_NAME.source}, at most ${MAX_USER_LENGTH} characters)`);
  }
  if (user === 'root' || user.startsWith('mysql') || user.startsWith('mariadb')) throw new StudentNameError(`${user} is reserved`);
  return user;
}

/**
 * A database with its account: the control plane makes both with one name, so a pair of two
 * names (one student's database, another's account) is refused.
 */
export function checkDatabaseAndUser(name: string, user: string): { name: string; user: string } {
  const checked = { name: checkDatabaseName(name), user: checkUserName(user) };
  if (checked.name !== checked.user) throw new StudentNameError(`database ${checked.name} and account ${checked.user} must have the same name`);
  return checked;
}

export const isSystemSchema = (name: string): boolean => SYSTEM_SCHEMAS.has(name);

/** `name` as a quoted identifier (only for names checkDatabaseName accepted). */
export function quotedIdentifier(name: string): string {
  return `\`${checkDatabaseName(name)}\``;
}

/** `name` as the database part of a GRANT: quoted, with the pattern wildcards escaped. */
export function grantDatabasePattern(name: string): string {
  return `\`${checkDatabaseName(name).replace(/[_%]/g, (wildcard) => `\\${wildcard}`)}\``;
}

/** A LIKE pattern for names that start with `prefix` (wildcards in the prefix taken literally). */
export function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\_%]/g, (special) => `\\${special}`)}%`;
}
