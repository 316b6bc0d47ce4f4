import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { pathProblems, schemaProblems, variableLabel } from './config-problems.ts';

const schema = z
  .object({
    NAME: z.string(),
    PORT: z.coerce.number().int().min(1).max(65535).default(8080),
    SIZE: z.coerce.number().positive().default(1),
    LEVEL: z.enum(['info', 'debug']).default('info'),
    ISSUER: z.url().optional(),
    LISTEN: z.string().regex(/^[a-z]+:\d+$/, 'host:port, e.g. localhost:7443').default('localhost:7443'),
    SECRET: z.string().min(32).optional(),
  })
  .refine((values) => values.LEVEL !== 'debug' || values.ISSUER === undefined, { path: ['ISSUER'], message: 'not together with LEVEL=debug' });

describe('schemaProblems', () => {
  it('names each wrong or missing variable in Dutch with what is expected', () => {
    const problems = schemaProblems(schema, { PORT: 'abc', SIZE: '0', LEVEL: 'loud', ISSUER: 'not a url', LISTEN: 'x', SECRET: 'short' });
    expect(problems).toEqual([
      { variable: 'NAME', problem: 'ontbreekt; verwacht: een tekst' },
      { variable: 'PORT', problem: 'ongeldig; verwacht: een getal' },
      { variable: 'SIZE', problem: 'ongeldig; verwacht: een getal groter dan 0' },
      { variable: 'LEVEL', problem: 'ongeldig; verwacht: een van info, debug' },
      { variable: 'ISSUER', problem: 'ongeldig; verwacht: een URL zoals https://login.school.nl' },
      // The schema's own words for the expected form.
      { variable: 'LISTEN', problem: 'ongeldig; verwacht: host:port, e.g. localhost:7443' },
      { variable: 'SECRET', problem: 'ongeldig; verwacht: minstens 32 tekens' },
    ]);
    expect(schemaProblems(schema, { NAME: 'x', PORT: '70000' })).toEqual([{ variable: 'PORT', problem: 'ongeldig; verwacht: hoogstens 65535' }]);
    expect(schemaProblems(schema, { NAME: 'x', PORT: '1.5' })).toEqual([{ variable: 'PORT', problem: 'ongeldig; verwacht: een geheel getal' }]);
  });

  it('names the variable a rule across variables points at, and nothing when all is well', () => {
    expect(schemaProblems(schema, { NAME: 'x', LEVEL: 'debug', ISSUER: 'https://login.school.nl' })).toEqual([
      { variable: 'ISSUER', problem: 'ongeldig; verwacht: not together with LEVEL=debug' },
    ]);
    expect(schemaProblems(schema, { NAME: 'x' })).toEqual([]);
  });
});

describe('variableLabel', () => {
  it('shows the value as given, but never a secret', () => {
    const env = { PORT: 'abc', SESSION_SECRET: 'kort', DATABASE_URL: 'postgres://u:p@h/d', AGENT_BROWSER_SECRET_FILE: '/run/x' };
    expect(variableLabel('PORT', env)).toBe('PORT (nu "abc")');
    expect(variableLabel('SESSION_SECRET', env)).toBe('SESSION_SECRET (waarde verborgen)');
    expect(variableLabel('DATABASE_URL', env)).toBe('DATABASE_URL (waarde verborgen)');
    expect(variableLabel('AGENT_BROWSER_SECRET_FILE', env)).toBe('AGENT_BROWSER_SECRET_FILE (nu "/run/x")');
    expect(variableLabel('MISSING', env)).toBe('MISSING');
  });
});

describe('pathProblems', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'config-problems-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names a file that is missing, a folder where a file belongs, and passes a readable file', () => {
    const file = path.join(dir, 'ca.pem');
    writeFileSync(file, 'x');
    mkdirSync(path.join(dir, 'folder'));
    expect(
      pathProblems([
        { variable: 'A', path: file, kind: 'file' },
        { variable: 'B', path: path.join(dir, 'none.pem'), kind: 'file' },
        { variable: 'C', path: path.join(dir, 'folder'), kind: 'file' },
        { variable: 'D', path: file, kind: 'folder' },
      ]),
    ).toEqual([
      { variable: 'B', problem: `het bestand ${path.join(dir, 'none.pem')} bestaat niet` },
      { variable: 'C', problem: `${path.join(dir, 'folder')} is een map; verwacht: een bestand` },
      { variable: 'D', problem: `${file} is geen map` },
    ]);
  });

  it.skipIf(process.getuid?.() === 0)('names a file this user may not read', () => {
    const file = path.join(dir, 'key.pem');
    writeFileSync(file, 'x');
    chmodSync(file, 0o000);
    expect(pathProblems([{ variable: 'KEY', path: file, kind: 'file' }])[0]?.problem).toMatch(/is niet leesbaar voor gebruiker/);
  });
});
