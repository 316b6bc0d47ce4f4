import { describe, expect, it } from 'vitest';
import { checkDatabaseName, checkUserName, grantDatabasePattern, likePrefix, quotedIdentifier, StudentNameError } from './student-database-names.ts';

describe('student database names', () => {
  it('accepts the control plane names and quotes them', () => {
    expect(checkDatabaseName('u12_abc')).toBe('u12_abc');
    expect(quotedIdentifier('u12_abc')).toBe('`u12_abc`');
  });

  it('escapes the GRANT wildcards so a grant opens one database only', () => {
    expect(grantDatabasePattern('u12_abc')).toBe('`u12\\_abc`');
    expect(grantDatabasePattern('u1__x')).toBe('`u1\\_\\_x`');
  });

  it.each(['', 'U12_abc', 'u12-abc', 'a`b', "a'b", 'u12_äbc', 'a b', 'x'.repeat(65), 'mysql', 'information_schema', 'a;drop'])(
    'refuses %j as a database name',
    (name) => {
      expect(() => checkDatabaseName(name)).toThrow(StudentNameError);
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
