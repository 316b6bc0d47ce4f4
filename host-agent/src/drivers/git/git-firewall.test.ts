import { describe, expect, it } from 'vitest';
import { gitPort, nameservers } from './git-firewall.ts';

describe('the git firewall’s parts', () => {
  it('knows the port of each transport, or the address’s own', () => {
    expect(gitPort({ protocol: 'https' })).toBe(443);
    expect(gitPort({ protocol: 'http' })).toBe(80);
    expect(gitPort({ protocol: 'git' })).toBe(9418);
    expect(gitPort({ protocol: 'ssh' })).toBe(22);
    expect(gitPort({ protocol: 'ssh', port: 2222 })).toBe(2222);
  });

  it('reads the nameservers of resolv.conf (addresses only)', () => {
    expect(nameservers('# x\nnameserver 10.0.0.2\nsearch school.nl\nnameserver ::1\n  nameserver 127.0.0.53\nnameserver bogus\n')).toEqual(['10.0.0.2', '::1', '127.0.0.53']);
    expect(nameservers('')).toEqual([]);
  });
});
