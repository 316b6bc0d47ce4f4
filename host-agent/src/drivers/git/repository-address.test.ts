/**
 * Property checks of the clone-address rule as the agent uses it (the cases are in
 * contract/src/validation/repositoryAddress.test.ts; fast-check is not for contract/src).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkRepositoryAddress, parseRepositoryAddress, RepositoryAddressError, type RepositoryAddressPolicy } from './repository-address.ts';

const withHttp: RepositoryAddressPolicy = { allowedHosts: ['git.school.nl', 'GitHub.com', '127.0.0.1'], allowHttp: true };

describe('parseRepositoryAddress', () => {
  it('returns the address or throws the reason', () => {
    expect(parseRepositoryAddress('git@github.com:a/b.git', withHttp).url).toBe('git@github.com:a/b.git');
    expect(() => parseRepositoryAddress('file:///etc', withHttp)).toThrow(RepositoryAddressError);
    const refused = ((): unknown => {
      try {
        return parseRepositoryAddress('ext::sh', withHttp);
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toMatchObject({ reason: 'transport-helper' });
  });
});

describe('checkRepositoryAddress: properties', () => {
  it('an accepted address is rebuilt from safe parts, to an allowed host, and checks the same again', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), fc.constantFrom('', 'https://', 'ssh://', 'git://', 'git@', 'file://', 'ext::'), fc.constantFrom('git.school.nl', 'github.com', 'evil.com', '127.0.0.1'), (tail, prefix, host) => {
        const input = `${prefix}${host}${tail}`;
        const check = checkRepositoryAddress(input, withHttp);
        if (!check.ok) return;
        const { address } = check;
        expect(['git.school.nl', 'github.com', '127.0.0.1']).toContain(address.host);
        expect(address.url.startsWith('-')).toBe(false);
        expect(address.url).not.toMatch(/[\s"'`$;|&<>\\]|::|^file:/i);
        expect(checkRepositoryAddress(address.url, withHttp)).toEqual(check);
      }),
      { numRuns: 2000 },
    );
  });

  it('nothing that starts with a transport helper, file:// or a dash is ever accepted', () => {
    fc.assert(
      fc.property(fc.constantFrom('ext::', 'fd::', 'file://', '-', 'FILE://', 'x+y::'), fc.string({ maxLength: 60 }), (prefix, tail) => {
        expect(checkRepositoryAddress(`${prefix}${tail}`, withHttp).ok).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });
});
