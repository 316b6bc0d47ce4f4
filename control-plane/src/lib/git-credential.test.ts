import { describe, expect, it } from 'vitest';
import { credentialAddressOf, credentialFits } from './git-credential.ts';

describe('credentialAddressOf', () => {
  it('lower-cases scheme and host, leaves out default ports, logins, trailing slashes and .git', () => {
    const same = [
      'https://git.school.nl/klas/site.git',
      'HTTPS://Git.School.NL/klas/site',
      'https://git.school.nl/klas/site/',
      'https://git.school.nl:443/klas/site.git/',
      ' https://git.school.nl/klas/site.git ',
    ];
    for (const address of same) expect(credentialAddressOf(address), address).toBe('https://git.school.nl/klas/site');
    expect(credentialAddressOf('git@git.school.nl:klas/site.git')).toBe('ssh://git.school.nl/klas/site');
    expect(credentialAddressOf('ssh://git@git.school.nl:22/klas/site')).toBe('ssh://git.school.nl/klas/site');
  });

  it('scheme, host, port and path each make another address; the path keeps its case', () => {
    const base = credentialAddressOf('https://git.school.nl/klas/site.git');
    for (const other of [
      'http://git.school.nl/klas/site.git',
      'https://git.school.nl.evil.example/klas/site.git',
      'https://git.school.nl:8443/klas/site.git',
      'https://git.school.nl/klas/site2.git',
      'https://git.school.nl/Klas/site.git',
      'https://git.school.nl/klas/site.git/extra',
    ]) {
      expect(credentialAddressOf(other), other).not.toBe(base);
    }
  });

  it('no address: null, and nothing fits it', () => {
    for (const raw of [null, '', 'https://', 'https://git.school.nl', 'https://git.school.nl/', 'zomaar tekst']) expect(credentialAddressOf(raw), String(raw)).toBeNull();
    expect(credentialFits('https://git.school.nl/klas/site', null)).toBe(false);
    expect(credentialFits('https://git.school.nl/klas/site', 'https://git.school.nl/klas/site.git')).toBe(true);
  });
});
