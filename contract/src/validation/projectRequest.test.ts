import { describe, expect, it } from 'vitest';
import {
  descriptionCounterIsGreen,
  domainForName,
  filterProjectName,
  projectRequestProblems,
  projectRequestSchema,
  type ProjectRequestInput,
} from './projectRequest.ts';

const SITE = 'dev.school.nl';
const valid: ProjectRequestInput = {
  name: 'mijn-site',
  domain: `mijn-site.${SITE}`,
  docker_id: 2,
  description: 'Een portfolio met de opdrachten van dit jaar erop.',
  visible: '1',
  users: [3, { id: 4 }, 3],
  repro: '',
  end_date: '',
};

describe('the docker form rules (§5)', () => {
  it('lets only a-z and hyphens be typed, lowercased', () => {
    expect(filterProjectName('Mijn Site_2!-x')).toBe('mijnsite-x');
  });

  it('fills the domain from the name, lowercased', () => {
    expect(domainForName('shop', 'Dev.School.NL')).toBe('shop.dev.school.nl');
  });

  it('turns the counter green at 39 characters', () => {
    expect(descriptionCounterIsGreen(38)).toBe(false);
    expect(descriptionCounterIsGreen(39)).toBe(true);
  });

  it('accepts a valid request and normalizes it', () => {
    const parsed = projectRequestSchema(SITE).parse({ ...valid, domain: `MIJN-site.${SITE}` });
    expect(parsed).toMatchObject({ domain: `mijn-site.${SITE}`, visible: true, users: [3, 4], repro: null, end_date: null });
  });

  it.each([
    [{ name: 'a' }, 'name'],
    [{ name: 'a_b' }, 'name'],
    [{ domain: 'ab.c' }, 'domain'],
    [{ domain: 'mijn-site.example.com' }, 'domain'],
    [{ docker_id: -1 }, 'docker_id'],
    [{ description: 'x'.repeat(39) }, 'description'],
    [{ repro: 'svn://x' }, 'repro'],
    [{ end_date: '2026-13-01' }, 'end_date'],
  ] as [Partial<ProjectRequestInput>, string][])('refuses %j on %s', (change, field) => {
    expect(Object.keys(projectRequestProblems({ ...valid, ...change }, SITE))).toEqual([field]);
  });

  it('accepts https and git@ addresses', () => {
    expect(projectRequestProblems({ ...valid, repro: 'https://git.school.nl/a/b.git' }, SITE)).toEqual({});
    expect(projectRequestProblems({ ...valid, repro: 'git@git.school.nl:a/b.git' }, SITE)).toEqual({});
  });
});
