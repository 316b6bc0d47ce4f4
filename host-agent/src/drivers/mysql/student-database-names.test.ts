import { describe, expect, it } from 'vitest';
import { checkDatabaseName, checkUserName, grantDatabasePattern, likePrefix, quotedIdentifier, StudentNameError } from './student-database-names.ts';
import { DatabaseServerUnavailableError, StudentDatabases } from './student-databases.ts';
import pino from 'pino';

describe('student database names', () => {
  it('accepts the control plane names and quotes them', () => {
    expect(checkDatabaseName('u12_abc')).toBe('u12_abc');
    expect(checkDatabaseName('u9007199254740991_a')).toBe('u9007199254740991_a');
    expect(quotedIdentifier('u12_abc')).toBe('`u12_abc`');
  });

  it('escapes the GRANT wildcards so a grant opens one database only', () => {
    expect(grantDatabasePattern('u12_abc')).toBe('`u12\\_abc`');
  });

  it.each(['', 'U12_abc', 'u12-abc', 'a`b', "a'b", 'u12_äbc', 'a b', 'x'.repeat(65), 'mysql', 'information_schema', 'a;drop'])(
    'refuses %j as a database name',
    (name) => {
      expect(() => checkDatabaseName(name)).toThrow(StudentNameError);
    },
  );

  // Only the student form u{id}_{1-3 letters} (what the control plane makes): no other schema
  // or account of the server, even one that looks harmless, can be created, dropped or locked.
  it.each(['shop', 'u12', 'u12_', 'u0_abc', 'u012_abc', 'u12_abcd', 'u12_ab1', 'u12__x', 'u1__x', 'x12_abc', 'u12_abc_x', 'devplein_agent', 'phpmyadmin', 'u12345678901234567_a'])(
    'refuses %j: not of the student form u{id}_{abc}',
    (name) => {
      expect(() => checkDatabaseName(name)).toThrow(StudentNameError);
      expect(() => checkUserName(name)).toThrow(StudentNameError);
    },
  );

  it('refuses reserved and too long account names', () => {
    expect(() => checkUserName('root')).toThrow(StudentNameError);
    expect(() => checkUserName('mysql_x')).toThrow(StudentNameError);
    expect(() => checkUserName('u'.repeat(33))).toThrow(StudentNameError);
    expect(checkUserName('u12_abc')).toBe('u12_abc');
  });

  it('takes a LIKE prefix literally', () => {
    expect(likePrefix('u1_')).toBe('u1\\_%');
    expect(likePrefix('')).toBe('%');
  });
});

describe('student database calls check their names before the server is asked', () => {
  // No server configured: a call that passes the checks fails with "unavailable" instead.
  const databases = new StudentDatabases({ url: undefined, userHost: '%', logger: pino({ level: 'silent' }) });

  it('refuses a database whose account is another name (create and drop)', async () => {
    expect(() => databases.create('u1_abc', 'u2_abc')).toThrow(StudentNameError);
    expect(() => databases.drop('u1_abc', 'u1_abd')).toThrow(StudentNameError);
    await expect(databases.create('u1_abc', 'u1_abc')).rejects.toThrow(DatabaseServerUnavailableError);
    await expect(databases.drop('u1_abc', 'u1_abc')).rejects.toThrow(DatabaseServerUnavailableError);
  });

  it('refuses other accounts in drop, lock and unlock', async () => {
    expect(() => databases.drop('shop', 'shop')).toThrow(StudentNameError);
    expect(() => databases.lock(['u1_abc', 'devplein_agent'])).toThrow(StudentNameError);
    expect(() => databases.unlock(['phpmyadmin'])).toThrow(StudentNameError);
    await expect(databases.lock(['u1_abc'])).rejects.toThrow(DatabaseServerUnavailableError);
  });
});
