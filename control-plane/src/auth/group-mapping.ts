import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { COHORT_PATTERN } from '@devplein/contract/validation/cohort';
import type { GroupPlan } from '../commands/sync-identity-groups.ts';

/**
 * The school's groups from the identity provider (OIDC_GROUPS_CLAIM + OIDC_GROUPS_MAPPING_FILE,
 * docs/operations.md "Groepen uit de identity provider"): which claim values give which cohort,
 * teams, admin flag and developer flag. The file is JSON:
 *
 *   { "mappings": [ { "value": "c2e5b8f1-4a7d-4e3c-8b6a-9d0f1e2a3b4c", "cohort": "SD25", "developer": true },
 *                   { "value": "3f6c2a8e-5b1d-4c7e-9a2f-8d4b6e1c0a93", "admin": true, "teams": ["Docenten"] } ] }
 *
 * The values should be immutable ids the school alone gives (Entra ID object ids, SURFconext
 * entitlements): `adminGrantsByName` finds admin entries that look like display names.
 *
 * What the file manages is what it names: the cohort when any entry gives one, the teams it
 * names (no other team), admin and developer when any entry gives them (true or false). A
 * managed field follows the claim at every sign-in; the rest stays manual.
 */

/** One entry: a claim value and what it gives. */
const mappingEntry = z
  .object({
    /**
     * The claim value, compared exactly (case and all). Use an id nobody but the school can
     * give: an Entra ID group's object id, a SURFconext entitlement (issue 35). A display name
     * can be taken by anyone who may make groups (Entra ID lets every user by default).
     */
    value: z.string().min(1, 'give the claim value, e.g. the group\'s object id "3f6c2a8e-5b1d-4c7e-9a2f-8d4b6e1c0a93"'),
    /** What the value is, for the reader (e.g. the group's name at the provider); ignored. */
    note: z.string().max(200, 'a note has at most 200 characters').optional(),
    cohort: z
      .string()
      .trim()
      .regex(COHORT_PATTERN, 'a cohort has 2 to 20 letters, digits or hyphens, e.g. SD25')
      .transform((cohort) => cohort.toUpperCase())
      .optional(),
    teams: z
      .array(z.string().trim().min(1, 'a team name cannot be empty').max(60, 'a team name has at most 60 characters'))
      .optional(),
    admin: z.boolean().optional(),
    developer: z.boolean().optional(),
  })
  .strict()
  .refine((entry) => entry.cohort !== undefined || entry.teams !== undefined || entry.admin !== undefined || entry.developer !== undefined, {
    message: 'this entry gives nothing: add cohort, teams, admin or developer',
  });

export const groupMappingFile = z
  .object({
    mappings: z.array(mappingEntry).min(1, 'list at least one mapping'),
  })
  .strict();

export type GroupMappingEntry = z.infer<typeof mappingEntry>;

/** The parsed file plus what it manages. */
export interface GroupMapping {
  /** The entries in file order (the first cohort that matches wins). */
  entries: GroupMappingEntry[];
  manages: {
    cohort: boolean;
    /** Every team the file names, as first written (compared case-insensitively). */
    teams: string[];
    admin: boolean;
    developer: boolean;
  };
}

export class GroupMappingError extends Error {}

/** Line and column (1-based) of a character offset. */
function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}

/** `mappings[2].teams[0]` from a zod path. */
function fieldOf(path: readonly PropertyKey[]): string {
  return path.reduce<string>((text, key) => (typeof key === 'number' ? `${text}[${key}]` : text ? `${text}.${String(key)}` : String(key)), '') || '(file)';
}

/** Derives what a checked file manages. */
export function groupMappingOf(entries: GroupMappingEntry[]): GroupMapping {
  const teams = new Map<string, string>();
  for (const entry of entries) for (const team of entry.teams ?? []) if (!teams.has(team.toLowerCase())) teams.set(team.toLowerCase(), team);
  return {
    entries,
    manages: {
      cohort: entries.some((entry) => entry.cohort !== undefined),
      teams: [...teams.values()],
      admin: entries.some((entry) => entry.admin !== undefined),
      developer: entries.some((entry) => entry.developer !== undefined),
    },
  };
}

/**
 * Parses the text of a mapping file; a GroupMappingError lists every problem, each with the
 * field (mappings[2].cohort) and, for a JSON syntax error, the line and column.
 */
export function parseGroupMapping(text: string): GroupMapping {
  let content: unknown;
  try {
    content = JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const position = /position (\d+)/.exec(message);
    const where = position ? ` at ${lineAndColumn(text, Number(position[1]))}` : '';
    throw new GroupMappingError(`not valid JSON${where}: ${message}`);
  }
  const parsed = groupMappingFile.safeParse(content);
  if (!parsed.success) {
    const entries = (content as { mappings?: unknown }).mappings;
    const problems = parsed.error.issues.map((issue) => {
      // Name the entry by its value too: "mappings[3]" alone is hard to find in a long file.
      const index = issue.path[0] === 'mappings' && typeof issue.path[1] === 'number' ? issue.path[1] : undefined;
      const value = index !== undefined && Array.isArray(entries) ? (entries[index] as { value?: unknown } | undefined)?.value : undefined;
      return `${fieldOf(issue.path)}${typeof value === 'string' ? ` (value "${value}")` : ''}: ${issue.message}`;
    });
    throw new GroupMappingError(problems.join('\n'));
  }
  return groupMappingOf(parsed.data.mappings);
}

/** Reads and checks OIDC_GROUPS_MAPPING_FILE; a GroupMappingError says what is wrong (and where). */
export function loadGroupMapping(file: string): GroupMapping {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new GroupMappingError(`cannot be read: ${(error as Error).message}`);
  }
  return parseGroupMapping(text);
}

/**
 * What an id nobody but the school can give looks like: an Entra ID object id (a GUID), or a URN
 * (a SURFconext entitlement, `urn:mace:…`; SURFconext's `urn:collab:group:…` memberships).
 */
const IMMUTABLE_ID = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|urn:[a-z0-9][a-z0-9-]{0,31}:\S+)$/i;

/**
 * The entries that grant admin by a value that does not look like an immutable id (issue 35):
 * a display name such as "devplein-docenten". Where students may create groups (Entra ID's
 * default) a student can make a group of that name, join it and sign in as an admin. The
 * control plane warns about each at start (main.ts); it does not refuse them (a provider may
 * send names that only the school can set, e.g. Keycloak roles).
 */
export function adminGrantsByName(mapping: GroupMapping): GroupMappingEntry[] {
  return mapping.entries.filter((entry) => entry.admin === true && !IMMUTABLE_ID.test(entry.value));
}

/**
 * The values of the groups claim: `name` itself when the claims have that key (claim names such
 * as https://school.nl/groups hold dots), else a dotted path into nested claims
 * (realm_access.roles). An array keeps its strings; a single string is one value. Undefined
 * when the claim is absent or is no string or list of strings: the sign-in then changes nothing.
 */
export function claimValues(claims: Record<string, unknown>, name: string): string[] | undefined {
  let value: unknown = Object.hasOwn(claims, name) ? claims[name] : undefined;
  if (value === undefined && name.includes('.')) {
    value = name.split('.').reduce<unknown>((node, key) => (node !== null && typeof node === 'object' && Object.hasOwn(node, key) ? (node as Record<string, unknown>)[key] : undefined), claims);
  }
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value as string[];
  return undefined;
}

/**
 * What the claim values give, combined over every matching entry: the union of their teams,
 * admin (developer) when any matching entry says true, the cohort of the first matching entry in
 * FILE order (a later one is reported in ignoredCohorts). A managed field no entry matched is
 * none / false / not a member: the claim no longer carries what gave it.
 */
export function planGroups(mapping: GroupMapping, values: readonly string[]): GroupPlan {
  const given = new Set(values);
  const matching = mapping.entries.filter((entry) => given.has(entry.value));
  const plan: GroupPlan = { matched: values.filter((value, index) => values.indexOf(value) === index && matching.some((entry) => entry.value === value)), ignoredCohorts: [] };
  if (mapping.manages.cohort) {
    const cohorts = matching.flatMap((entry) => (entry.cohort === undefined ? [] : [entry.cohort]));
    plan.cohort = cohorts[0] ?? null;
    plan.ignoredCohorts = [...new Set(cohorts.slice(1))].filter((cohort) => cohort !== plan.cohort);
  }
  if (mapping.manages.teams.length > 0) {
    const wanted = new Set(matching.flatMap((entry) => (entry.teams ?? []).map((team) => team.toLowerCase())));
    plan.teams = mapping.manages.teams.map((name) => ({ name, member: wanted.has(name.toLowerCase()) }));
  }
  if (mapping.manages.admin) plan.admin = matching.some((entry) => entry.admin === true);
  if (mapping.manages.developer) plan.developer = matching.some((entry) => entry.developer === true);
  return plan;
}
