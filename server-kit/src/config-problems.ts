/**
 * What is wrong with a process's settings, one problem per variable, in Dutch for the sysadmin
 * (`devplein config check`): the process's own zod schema decides, this module words its issues.
 * A schema's own message (the expected form, written next to the rule) is kept as it is.
 */
import { accessSync, constants, statSync } from 'node:fs';
import type { z } from 'zod';

/** One wrong or missing setting: the variable and, in Dutch, what is wrong and what is expected. */
export interface ConfigProblem {
  variable: string;
  problem: string;
}

/** Settings whose values never appear in a report (it goes to the journal). */
const SECRET_NAME = /SECRET|PASSWORD|TOKEN|ENCRYPTION_KEY|DATABASE_URL|MYSQL_URL/;

/** Marks a message this module wrote, so the schema's own messages can be told apart. */
const OWN = '\u0001';

const kinds: Record<string, string> = {
  string: 'een tekst',
  number: 'een getal',
  int: 'een geheel getal',
  boolean: 'true of false',
  array: 'een lijst',
  object: 'een object',
};

/** zod's issue in Dutch (what is expected), for rules whose schema gives no message of its own. */
function dutchIssue(issue: z.core.$ZodRawIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `verwacht: ${kinds[issue.expected] ?? issue.expected}`;
    case 'too_small': {
      const minimum = String(issue.minimum);
      if (issue.origin === 'string') return `verwacht: minstens ${minimum} tekens`;
      if (issue.origin === 'array' || issue.origin === 'set') return `verwacht: er minstens ${minimum}`;
      return issue.inclusive === false ? `verwacht: een getal groter dan ${minimum}` : `verwacht: minstens ${minimum}`;
    }
    case 'too_big': {
      const maximum = String(issue.maximum);
      if (issue.origin === 'string') return `verwacht: hoogstens ${maximum} tekens`;
      if (issue.origin === 'array' || issue.origin === 'set') return `verwacht: er hoogstens ${maximum}`;
      return issue.inclusive === false ? `verwacht: een getal kleiner dan ${maximum}` : `verwacht: hoogstens ${maximum}`;
    }
    case 'invalid_value':
      return `verwacht: een van ${issue.values.map(String).join(', ')}`;
    case 'invalid_format':
      if (issue.format === 'url') return 'verwacht: een URL zoals https://login.school.nl';
      if (issue.format === 'email') return 'verwacht: een e-mailadres';
      if (issue.format === 'ipv4') return 'verwacht: een IPv4-adres zoals 127.0.0.1';
      return issue.format === 'regex' ? `verwacht: een waarde van de vorm ${String(issue.pattern)}` : `verwacht: de vorm ${issue.format}`;
    case 'not_multiple_of':
      return `verwacht: een veelvoud van ${String(issue.divisor)}`;
    case 'unrecognized_keys':
      return `onbekende sleutels: ${issue.keys.join(', ')}`;
    default:
      return 'verwacht: een geldige waarde';
  }
}

/** `NAME` or `NAME (nu "value")`: the value as given, unless it is a secret. */
export function variableLabel(variable: string, env: Record<string, string | undefined>): string {
  const value = env[variable];
  if (value === undefined || value === '') return variable;
  return SECRET_NAME.test(variable) && !variable.endsWith('_FILE') ? `${variable} (waarde verborgen)` : `${variable} (nu ${JSON.stringify(value)})`;
}

/**
 * Every issue `schema` finds in `env`, one problem each: "ontbreekt" or "ongeldig", then what
 * is expected, in the schema's own words where it has them (they name the expected form).
 */
export function schemaProblems(schema: z.ZodType, env: Record<string, string | undefined>): ConfigProblem[] {
  const result = schema.safeParse(env, { error: (issue) => OWN + dutchIssue(issue) });
  if (result.success) return [];
  return result.error.issues.map((issue) => {
    const [variable = '(omgeving)', ...rest] = issue.path.map(String);
    const where = rest.length > 0 ? ` (onderdeel ${rest.join('.')})` : '';
    const missing = env[variable] === undefined || env[variable] === '';
    const expected = issue.message.startsWith(OWN) ? issue.message.slice(OWN.length) : `verwacht: ${issue.message}`;
    return { variable, problem: `${missing ? 'ontbreekt' : 'ongeldig'}${where}; ${expected}` };
  });
}

/** A file or folder a setting names, and what the process does with it. */
export interface NamedPath {
  variable: string;
  path: string;
  /** file: read; folder: read and write in it. */
  kind: 'file' | 'folder';
}

/**
 * The paths that do not exist or that this process may not use as the service will: under its
 * unit (ExecStartPre) that is the service's own user and sandbox, so "readable" is the truth.
 */
export function pathProblems(paths: NamedPath[]): ConfigProblem[] {
  const user = process.getuid?.() === 0 ? 'root' : `gebruiker ${process.env.USER ?? process.getuid?.() ?? '?'}`;
  return paths.flatMap(({ variable, path, kind }): ConfigProblem[] => {
    let isFolder: boolean;
    try {
      isFolder = statSync(path).isDirectory();
    } catch (error) {
      const what = kind === 'file' ? 'het bestand' : 'de map';
      const hidden = (error as NodeJS.ErrnoException).code === 'EACCES';
      return [{ variable, problem: hidden ? `${what} ${path} is voor ${user} niet bereikbaar (een map erboven is afgeschermd)` : `${what} ${path} bestaat niet` }];
    }
    if (kind === 'file' && isFolder) return [{ variable, problem: `${path} is een map; verwacht: een bestand` }];
    if (kind === 'folder' && !isFolder) return [{ variable, problem: `${path} is geen map` }];
    try {
      accessSync(path, kind === 'file' ? constants.R_OK : constants.R_OK | constants.W_OK | constants.X_OK);
    } catch {
      return [{ variable, problem: `${path} is niet ${kind === 'file' ? 'leesbaar' : 'beschrijfbaar'} voor ${user}` }];
    }
    return [];
  });
}
