import { describe, expect, it } from 'vitest';
import { introduceeGitUsername, introduceeNameProblems } from './licensesAndIntroducees.ts';

describe('introducee names', () => {
  it('derives the git user name by dropping the first three characters', () => {
    expect(introduceeGitUsername('mlpjansen')).toBe('jansen');
    expect(introduceeGitUsername('abcd')).toBe('d');
  });

  it.each(['mlpjansen', 'abcd', 'mlpj-de-vries', 'x2025', `m${'a'.repeat(30)}`])('accepts %s', (name) => {
    expect(introduceeNameProblems(name)).toEqual([]);
  });

  it.each([
    ['', 'Vul een naam in.'],
    ['abc', 'minimaal 4'],
    [`m${'a'.repeat(31)}`, 'maximaal 31'],
    ['Mlpjansen', 'kleine letters'],
    ['1mlp', 'begin met een letter'],
    ['mlp_jansen', 'kleine letters'],
    ['mlpjänsen', 'kleine letters'],
    ['mlpjansen-', 'eindigen op een streepje'],
    ['mlp-jansen', 'vierde teken'],
  ])('refuses %j', (name, message) => {
    const problems = introduceeNameProblems(name);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(message);
  });
});
