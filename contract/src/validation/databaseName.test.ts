import { describe, expect, it } from 'vitest';
import { DATABASE_NAME_MESSAGES, databaseNameProblem, existingSuffix, normalizeDatabaseName } from './databaseName.ts';

describe('the database name rule (§5)', () => {
  it.each([
    ['ABC', 'abc'],
    ['a1b2c3', 'abc'],
    ['abcd', 'abc'],
    ["a'b`c", 'abc'],
    ['äbç', 'b'],
    ['123', ''],
    ['', ''],
  ])('normalizes %j to %j while typing', (input, expected) => {
    expect(normalizeDatabaseName(input)).toBe(expected);
  });

  it('takes the part after the last underscore of a stored name', () => {
    expect(existingSuffix('u12_abc')).toBe('abc');
    expect(existingSuffix('u1_x_yz')).toBe('yz');
    expect(existingSuffix('oud')).toBe('oud');
  });

  it.each(['a', 'ab', 'abc', 'xyz'])('accepts %j', (name) => {
    expect(databaseNameProblem(name, ['u12_abd', 'zz'])).toBeNull();
  });

  it.each([
    ['', DATABASE_NAME_MESSAGES.empty],
    ['abcd', DATABASE_NAME_MESSAGES.tooLong],
    ['123', DATABASE_NAME_MESSAGES.lettersOnly],
    ["a'b", DATABASE_NAME_MESSAGES.lettersOnly],
    ['a`b', DATABASE_NAME_MESSAGES.lettersOnly],
    ['äb', DATABASE_NAME_MESSAGES.lettersOnly],
    ['Ab', DATABASE_NAME_MESSAGES.lettersOnly],
    ['a_b', DATABASE_NAME_MESSAGES.lettersOnly],
    ['a b', DATABASE_NAME_MESSAGES.lettersOnly],
  ])('refuses %j', (name, message) => {
    expect(databaseNameProblem(name, [])).toBe(message);
  });

  it('refuses a name that exists, as suffix or as whole name', () => {
    expect(databaseNameProblem('abc', ['u12_abc'])).toBe(DATABASE_NAME_MESSAGES.taken);
    expect(databaseNameProblem('zz', ['zz'])).toBe(DATABASE_NAME_MESSAGES.taken);
    expect(databaseNameProblem('ab', ['u12_abc'])).toBeNull();
  });
});
