import { describe, expect, it } from 'vitest';
import { checkRepositoryAddress, parseAllowedHost, repositoryPort, type RepositoryAddressPolicy, type RepositoryAddressRefusal } from './repositoryAddress.ts';

const policy: RepositoryAddressPolicy = { allowedHosts: ['git.school.nl', 'git.school.nl:2222', 'git.school.nl:3000', 'GitHub.com', '127.0.0.1'] };
const withHttp: RepositoryAddressPolicy = { ...policy, allowHttp: true };

describe('checkRepositoryAddress: accepted addresses', () => {
  it.each([
    ['https://git.school.nl/klas/site.git', 'https', 'https://git.school.nl/klas/site.git'],
    ['  https://GIT.school.nl/klas/site  ', 'https', 'https://git.school.nl/klas/site'],
    ['HTTPS://github.com/a/b.git', 'https', 'https://github.com/a/b.git'],
    ['https://git.school.nl:3000/klas/site.git', 'https', 'https://git.school.nl:3000/klas/site.git'],
    ['git://127.0.0.1:9418/site.git', 'git', 'git://127.0.0.1:9418/site.git'],
    ['ssh://git@git.school.nl:2222/klas/site.git', 'ssh', 'ssh://git@git.school.nl:2222/klas/site.git'],
    ['ssh://git.school.nl/klas/site.git', 'ssh', 'ssh://git.school.nl/klas/site.git'],
    ['git@github.com:student/site.git', 'ssh', 'git@github.com:student/site.git'],
    ['github.com:student/site.git', 'ssh', 'github.com:student/site.git'],
    ['git@git.school.nl:/srv/git/site.git', 'ssh', 'git@git.school.nl:/srv/git/site.git'],
    ['https://git.school.nl/~jan/site_v2+x%20y.git', 'https', 'https://git.school.nl/~jan/site_v2+x%20y.git'],
  ])('%s', (input, protocol, url) => {
    const check = checkRepositoryAddress(input, policy);
    expect(check).toMatchObject({ ok: true, address: { protocol, url } });
  });

  it('splits an address into its parts', () => {
    expect(checkRepositoryAddress('ssh://git@git.school.nl:2222/klas/site.git', policy)).toEqual({
      ok: true,
      address: { protocol: 'ssh', host: 'git.school.nl', port: 2222, user: 'git', path: '/klas/site.git', scpLike: false, url: 'ssh://git@git.school.nl:2222/klas/site.git' },
    });
    expect(checkRepositoryAddress('git@github.com:a/b.git', policy)).toEqual({
      ok: true,
      address: { protocol: 'ssh', host: 'github.com', user: 'git', path: 'a/b.git', scpLike: true, url: 'git@github.com:a/b.git' },
    });
  });

  it('accepts http:// only when the setting allows it', () => {
    expect(checkRepositoryAddress('http://git.school.nl/klas/site.git', policy)).toMatchObject({ ok: false, reason: 'http-not-allowed' });
    expect(checkRepositoryAddress('http://git.school.nl/klas/site.git', withHttp)).toMatchObject({ ok: true, address: { protocol: 'http' } });
  });
});

describe('checkRepositoryAddress: refused addresses, each with its reason', () => {
  const cases: Array<[string, RepositoryAddressRefusal]> = [
    ['', 'empty'],
    ['   ', 'empty'],
    [`https://git.school.nl/${'a'.repeat(1100)}`, 'too-long'],
    ['file:///srv/git/site.git', 'file-protocol'],
    ['FILE://git.school.nl/srv/site.git', 'file-protocol'],
    ['/srv/git/site.git', 'local-path'],
    ['./site.git', 'local-path'],
    ['../site', 'local-path'],
    ['~/site.git', 'local-path'],
    ['site.git', 'local-path'],
    ['klas/site:x', 'local-path'],
    ['git@klas/site:x', 'local-path'],
    ['ext::sh -c touch% /tmp/pwned', 'bad-characters'],
    ['ext::sh', 'transport-helper'],
    ['fd::3', 'transport-helper'],
    ['EXT::git.school.nl', 'transport-helper'],
    ['https::git.school.nl/klas/site.git', 'transport-helper'],
    ['persistent-https::x', 'transport-helper'],
    ['-uecho', 'option-like'],
    ['--upload-pack=touch', 'option-like'],
    ['git@git.school.nl:-oProxyCommand=x', 'option-like'],
    ['ssh://-oProxyCommand=x/site.git', 'bad-host'],
    ['https://jan:geheim@git.school.nl/klas/site.git', 'credentials'],
    ['https://ghp_token@github.com/a/b.git', 'credentials'],
    ['git://jan@git.school.nl/site.git', 'credentials'],
    ['ssh://git:geheim@git.school.nl/site.git', 'credentials'],
    ['jan:geheim@git.school.nl:site.git', 'credentials'],
    ['ftp://git.school.nl/site.git', 'unsupported-protocol'],
    ['git+ssh://git@git.school.nl/site.git', 'unsupported-protocol'],
    ['rsync://git.school.nl/site.git', 'unsupported-protocol'],
    ['http://git.school.nl/site.git', 'http-not-allowed'],
    ['https://gitlab.com/a/b.git', 'host-not-allowed'],
    ['https://git.school.nl.evil.com/a/b.git', 'host-not-allowed'],
    ['https://evil.com/git.school.nl/a.git', 'host-not-allowed'],
    ['git@evil.com:a/b.git', 'host-not-allowed'],
    ['https://127.0.0.2/a.git', 'host-not-allowed'],
    ['https://[::1]/a.git', 'bad-host'],
    ['https://git.school.nl./a.git', 'bad-host'],
    ['https://git_school.nl/a.git', 'bad-host'],
    ['https://300.1.1.1/a.git', 'bad-host'],
    ['https:///a.git', 'bad-host'],
    ['https://git.school.nl:0/a.git', 'bad-port'],
    ['https://git.school.nl:70000/a.git', 'bad-port'],
    ['https://git.school.nl:x/a.git', 'bad-port'],
    ['https://git.school.nl', 'bad-path'],
    ['https://git.school.nl/', 'bad-path'],
    ['git@git.school.nl:', 'bad-path'],
    ['https://git.school.nl/klas/../../etc', 'bad-path'],
    ['https://git.school.nl/a.git?x=1', 'bad-characters'],
    ['https://git.school.nl/a.git#main', 'bad-characters'],
    ['https://git.school.nl/a b.git', 'bad-characters'],
    ['https://git.school.nl/a.git\n--upload-pack=x', 'bad-characters'],
    ['https://git.school.nl/$(id).git', 'bad-characters'],
    ['git@git.school.nl:a;b', 'bad-characters'],
  ];
  it.each(cases)('%j → %s', (input, reason) => {
    const check = checkRepositoryAddress(input, policy);
    expect(check).toMatchObject({ ok: false, reason });
    if (!check.ok) expect(check.message.length).toBeGreaterThan(10);
  });

  it('allows the standard port of the transport only, unless the list names another port for the host (issue 35)', () => {
    const school: RepositoryAddressPolicy = { allowedHosts: ['git.school.nl', 'forge.school.nl:2222'], allowHttp: true };
    const port = (input: string) => {
      const check = checkRepositoryAddress(input, school);
      return check.ok ? 'ok' : check.reason;
    };
    // The firewall would open git.school.nl:3306 (the school's database) for the dev server's git user.
    expect(port('https://git.school.nl:3306/x.git')).toBe('port-not-allowed');
    expect(port('ssh://git@git.school.nl:3306/x.git')).toBe('port-not-allowed');
    expect(port('git://git.school.nl:22/x.git')).toBe('port-not-allowed');
    expect(port('http://git.school.nl:443/x.git')).toBe('port-not-allowed');
    expect(port('https://forge.school.nl/x.git')).toBe('port-not-allowed');
    expect(port('git@forge.school.nl:x.git')).toBe('port-not-allowed');
    // The standard ports, written or not, and the port an entry names.
    for (const ok of ['https://git.school.nl/x.git', 'https://git.school.nl:443/x.git', 'ssh://git@git.school.nl:22/x.git', 'git@git.school.nl:x.git', 'http://git.school.nl:80/x.git', 'git://git.school.nl/x.git', 'git://git.school.nl:9418/x.git', 'ssh://git@forge.school.nl:2222/x.git', 'https://forge.school.nl:2222/x.git']) {
      expect(port(ok), ok).toBe('ok');
    }
    expect(checkRepositoryAddress('https://git.school.nl:3306/x.git', school)).toMatchObject({ message: expect.stringContaining('Poort 3306 van de Git-server git.school.nl is niet toegestaan; toegestaan: poort 443.') });
  });

  it('reads allow-list entries with and without a port', () => {
    expect(parseAllowedHost(' Git.School.nl ')).toEqual({ host: 'git.school.nl' });
    expect(parseAllowedHost('git.school.nl:2222')).toEqual({ host: 'git.school.nl', port: 2222 });
    for (const bad of ['git.school.nl:0', 'git.school.nl:70000', 'git.school.nl:', ':22', 'a b', 'git.school.nl:22:23']) expect(parseAllowedHost(bad), bad).toBeUndefined();
    expect(repositoryPort({ protocol: 'https' })).toBe(443);
    expect(repositoryPort({ protocol: 'ssh', port: 2222 })).toBe(2222);
  });

  it('names the allowed hosts when the host is not one of them', () => {
    const check = checkRepositoryAddress('https://gitlab.com/a/b.git', policy);
    expect(check).toMatchObject({ ok: false, message: expect.stringContaining('git.school.nl') });
    expect(checkRepositoryAddress('https://gitlab.com/a/b.git', { allowedHosts: [] })).toMatchObject({
      ok: false,
      message: expect.stringContaining('nog geen Git-servers'),
    });
  });
});
