import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { adminGrantsByName, claimValues, GroupMappingError, loadGroupMapping, parseGroupMapping, planGroups } from './group-mapping.ts';
import { DEV_GROUP_ACCOUNTS } from './dev-identity-provider.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

const mapping = (mappings: unknown[]) => parseGroupMapping(JSON.stringify({ mappings }));

/** The message of the GroupMappingError that parsing `text` throws. */
function problemOf(text: string): string {
  try {
    parseGroupMapping(text);
  } catch (error) {
    expect(error).toBeInstanceOf(GroupMappingError);
    return (error as Error).message;
  }
  throw new Error('the file was accepted');
}

describe('parseGroupMapping', () => {
  it('reads the example file of deploy/oidc and derives what it manages', () => {
    const parsed = loadGroupMapping(path.join(root, 'deploy/oidc/group-mapping.example.json'));
    expect(parsed.entries.length).toBeGreaterThan(0);
    expect(parsed.manages).toEqual({ cohort: true, teams: ['Docenten', 'Webshop'], admin: true, developer: true });
  });

  it('knows every group of the development provider\'s accounts with groups (they demonstrate it)', () => {
    const parsed = loadGroupMapping(path.join(root, 'deploy/oidc/group-mapping.example.json'));
    for (const account of DEV_GROUP_ACCOUNTS) expect(planGroups(parsed, account.groups).matched).toEqual(account.groups);
  });

  it('manages only the fields the file names', () => {
    const parsed = mapping([{ value: 'team-a', teams: ['Team A', 'team a', 'B'] }]);
    // Team names compare case-insensitively: the first spelling is kept.
    expect(parsed.manages).toEqual({ cohort: false, teams: ['Team A', 'B'], admin: false, developer: false });
    const plan = planGroups(parsed, ['team-a']);
    expect(plan).toEqual({ matched: ['team-a'], teams: [{ name: 'Team A', member: true }, { name: 'B', member: true }], ignoredCohorts: [] });
    expect('cohort' in plan || 'admin' in plan || 'developer' in plan).toBe(false);
  });

  it('stores a cohort in capitals', () => {
    expect(mapping([{ value: 'x', cohort: ' sd25 ' }]).entries[0]?.cohort).toBe('SD25');
  });

  it('names the line and column of a JSON syntax error', () => {
    expect(problemOf('{\n  "mappings": [\n    { "value": "a", }\n  ]\n}')).toMatch(/^not valid JSON at line 3, column \d+/);
  });

  it('names the field (and the entry by its value) of every problem at once', () => {
    const message = problemOf(
      JSON.stringify({
        mappings: [
          { value: 'ok', admin: true },
          { value: 'klas-x', cohort: 'S D!' },
          { value: 'leeg' },
          { value: 'typo', admni: true },
          { value: '', developer: 'yes' },
        ],
      }),
    );
    const lines = message.split('\n');
    expect(lines).toContainEqual(expect.stringMatching(/^mappings\[1\]\.cohort \(value "klas-x"\): a cohort has 2 to 20/));
    expect(lines).toContainEqual(expect.stringMatching(/^mappings\[2\] \(value "leeg"\): this entry gives nothing/));
    expect(lines).toContainEqual(expect.stringMatching(/^mappings\[3\] \(value "typo"\): .*admni/));
    expect(lines).toContainEqual(expect.stringMatching(/^mappings\[4\]\.value/));
    expect(lines).toContainEqual(expect.stringMatching(/^mappings\[4\]\.developer/));
  });

  it('refuses an empty list, unknown top-level keys and a file that is no object', () => {
    expect(problemOf('{"mappings": []}')).toMatch(/^mappings: list at least one mapping/);
    expect(problemOf('{"mappings": [{"value": "a", "admin": true}], "extra": 1}')).toMatch(/extra/);
    expect(problemOf('[]')).toMatch(/^\(file\)/);
  });

  it('says when the file cannot be read', () => {
    expect(() => loadGroupMapping(path.join(mkdtempSync(path.join(tmpdir(), 'map-')), 'missing.json'))).toThrow(/cannot be read: .*ENOENT/);
  });

  it('reads a file from disk', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'map-')), 'map.json');
    writeFileSync(file, readFileSync(path.join(root, 'deploy/oidc/group-mapping.example.json')));
    expect(loadGroupMapping(file).entries[0]?.value).toBe('3f6c2a8e-5b1d-4c7e-9a2f-8d4b6e1c0a93');
  });
});

describe('adminGrantsByName (issue 35)', () => {
  it('finds the entries that grant admin by a value that does not look like an immutable id', () => {
    const parsed = mapping([
      { value: 'devplein-docenten', admin: true, teams: ['Docenten'] },
      { value: 'Docenten', admin: true },
      { value: '3f6c2a8e-5b1d-4c7e-9a2f-8d4b6e1c0a93', admin: true },
      { value: 'urn:mace:school.nl:entitlement:devplein:beheer', admin: true },
      { value: 'urn:collab:group:surfteams.nl:nl:surfnet:diensten:devplein-docenten', admin: true },
      { value: 'klas-sd25', cohort: 'SD25', developer: true },
      { value: 'stagiairs', admin: false },
    ]);
    expect(adminGrantsByName(parsed).map((entry) => entry.value)).toEqual(['devplein-docenten', 'Docenten']);
  });

  it('finds none in the example file: it maps immutable ids, with a note of what each is', () => {
    const example = loadGroupMapping(path.join(root, 'deploy/oidc/group-mapping.example.json'));
    expect(adminGrantsByName(example)).toEqual([]);
    expect(example.entries.some((entry) => entry.admin === true)).toBe(true);
    expect(example.entries.every((entry) => typeof entry.note === 'string')).toBe(true);
  });
});

describe('claimValues', () => {
  it('reads a list, a single string, a dotted path and a claim name with dots', () => {
    expect(claimValues({ groups: ['a', 'b'] }, 'groups')).toEqual(['a', 'b']);
    expect(claimValues({ groups: 'a' }, 'groups')).toEqual(['a']);
    expect(claimValues({ realm_access: { roles: ['docent'] } }, 'realm_access.roles')).toEqual(['docent']);
    expect(claimValues({ 'https://school.nl/groups': ['x'] }, 'https://school.nl/groups')).toEqual(['x']);
    expect(claimValues({ groups: [] }, 'groups')).toEqual([]);
  });

  it('is undefined when the claim is missing or has another shape', () => {
    expect(claimValues({}, 'groups')).toBeUndefined();
    expect(claimValues({ groups: [1, 2] }, 'groups')).toBeUndefined();
    expect(claimValues({ groups: { a: 1 } }, 'groups')).toBeUndefined();
    expect(claimValues({ realm_access: 'x' }, 'realm_access.roles')).toBeUndefined();
    // Nothing from the prototype chain.
    expect(claimValues({}, 'constructor.name')).toBeUndefined();
  });
});

describe('planGroups', () => {
  const school = mapping([
    { value: 'docenten', admin: true, teams: ['Docenten'] },
    { value: 'klas-sd24', cohort: 'SD24', developer: true },
    { value: 'klas-sd25', cohort: 'SD25', developer: true },
    { value: 'team-webshop', teams: ['Webshop'] },
    { value: 'team-shop-2', teams: ['webshop', 'Beheer'] },
    { value: 'stagiairs', admin: false, developer: false },
  ]);

  it('combines every matching entry: the union of teams, admin and developer when any says so', () => {
    const plan = planGroups(school, ['team-webshop', 'docenten', 'klas-sd25', 'unknown']);
    expect(plan).toEqual({
      matched: ['team-webshop', 'docenten', 'klas-sd25'],
      cohort: 'SD25',
      teams: [
        { name: 'Docenten', member: true },
        { name: 'Webshop', member: true },
        { name: 'Beheer', member: false },
      ],
      admin: true,
      developer: true,
      ignoredCohorts: [],
    });
  });

  it('lets true win over false for a flag', () => {
    expect(planGroups(school, ['stagiairs', 'klas-sd24'])).toMatchObject({ admin: false, developer: true });
  });

  it('gives the cohort of the first entry in file order when values disagree, and reports the others', () => {
    // Claim order does not matter: the file decides.
    const plan = planGroups(school, ['klas-sd25', 'klas-sd24']);
    expect(plan.cohort).toBe('SD24');
    expect(plan.ignoredCohorts).toEqual(['SD25']);
  });

  it('clears every managed field for values that match nothing (or an empty claim)', () => {
    for (const values of [[], ['iets-anders']]) {
      expect(planGroups(school, values)).toEqual({
        matched: [],
        cohort: null,
        teams: [
          { name: 'Docenten', member: false },
          { name: 'Webshop', member: false },
          { name: 'Beheer', member: false },
        ],
        admin: false,
        developer: false,
        ignoredCohorts: [],
      });
    }
  });

  it('compares claim values exactly', () => {
    expect(planGroups(school, ['Docenten', 'KLAS-SD24']).matched).toEqual([]);
  });

  it('counts a value given twice once', () => {
    expect(planGroups(school, ['docenten', 'docenten']).matched).toEqual(['docenten']);
  });
});
