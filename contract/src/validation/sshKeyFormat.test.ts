import { describe, expect, it } from 'vitest';
import {
  isValidSshKeyFormat,
  parseSshKeyText,
  SSH_KEY_MAX_LENGTH,
  SSH_KEY_TYPES,
  sshKeyNameFromText,
} from './sshKeyFormat.ts';

// Public keys made by `ssh-keygen` (OpenSSH 9.2); the control plane's tests make fresh ones of every type.
const ED25519 =
  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEe/21vMJTHu0Rq8H8jBCJ9KLe2T4Qbe5JMyhcIMRsh/ anna@laptop';
const NISTP256 =
  'ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBAFAxrwIxbauSyG5YcMe8Ksj/DYWG/sUfoS4fpyv8kCPaags8XrNJb7kDAo7PQllyWUsTvTR3wIDE48XlNQadWE= anna@laptop';
const NISTP384 =
  'ecdsa-sha2-nistp384 AAAAE2VjZHNhLXNoYTItbmlzdHAzODQAAAAIbmlzdHAzODQAAABhBOLa6EQYTmVXa0h5ZjNH3eHarpS5qP2iMZq6MHLio3vFxnD6QJ0fsGQYeuqivUulndHqed6i/nA577YasIIUfGhGrJZKpne7GPDB2KaUWkmvYi9tcwWxp7WpZyspqfCaGg== anna@laptop';
const NISTP521 =
  'ecdsa-sha2-nistp521 AAAAE2VjZHNhLXNoYTItbmlzdHA1MjEAAAAIbmlzdHA1MjEAAACFBAHknd0Xuq2CtJhRce+Fv+59dld17DRZsJj6Z8u6cjSJ9WmeFQHOAgMm7UNRYMlbq4oBTlzK5El9cqKt4RHZsJhKzAHzvp5CbnHyPClSUArFKZhgJtxQ+81WcpWhaJBFSH9jahkWDX5J45+uZS2GQaHglLUy52VGKmp0BmY+9EUcK1do0w== anna@laptop';
const DSS =
  'ssh-dss AAAAB3NzaC1kc3MAAACBAIXcQdL+9Z+TevtxtFeXlFc41qS5MiqMnSV06wD80kqUaCrzq9M+ng4c1H05x/CJoXIYNW+7j+O7B77gE2DVGyGpkzfm+pxY5+Wet2sXIWZjQyGf5EIcS/SjetcBry21GJ+jLS4i70f4Bf2J6Jrga9ZMQ4OJLcIrk9+tbUcmjRi7AAAAFQD+reiPYMnQMkbE5q3KnaWoQJrjcwAAAIAuw3wb1nB+oZoShLZ724qMJzWCrd4ms7ZD+QhTDumtV5EPdEYk8KSmBVArhDhzSsntKMcp3NsICvuja1TxAX2ymVdaloVwXP3YtQ5kZb5pQ0skjLlIBT9RqfkyejNo0Ueu620Mvqk+F7lhNv+ypto+jMVR+vikNfBP6Xh/FIRnBgAAAIBBFWaIk9lcboBVHEgtmKG4SOang6bdQqBB4YJLV3rQ2aQBYfc3xgHypZzgtTeFEPlBFsW41LwQ4e6R1Z+riSuW4H1qq6eDVXmJuKtcl4+fvuAqDAKVlRa+kVjM7TfEknM2NGFSs0GwoeA4tkJzHH1uHtAnWF328eJIRq5cShdcjg== anna@laptop';
const RSA =
  'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQDO9j29qwKEk9xgrvzWmHq0wAJE9qgxXG4rUZJ34brYM7/J00HCCEuLtsls09iTn0vOsh8sf06XwJihwF3DJLd4DH5EJkbDpvm4INbFqj6b0dqDodUfreNNgl7rDhK59kDdAMIIOgf+3uZ7mo8xdK24UDB0rsCTyja8s1mmvmh06MWkCu7fMeMzpKb1BdCjhmUAb/+Mr3M08D0ptgXROWyw7BCfEIpK5Osq7GpaeJaN+lnRu5xjHWU7GRYMetcYR18IayJ9lT+MAtP9f5QLuCF6SfB/zvlabqPue7fulni95W7mBqNi/0A4mdL3lsm0F5ipvQvruU1D/YhLbNDfVovl anna@laptop';

const ALL = { ED25519, NISTP256, NISTP384, NISTP521, DSS, RSA };

describe('the SSH key format rule of spec §5', () => {
  it.each(Object.entries(ALL))('accepts a %s key as ssh-keygen writes it', (_kind, key) => {
    expect(isValidSshKeyFormat(key)).toBe(true);
    expect(isValidSshKeyFormat(`${key}\n`)).toBe(true);
    expect(isValidSshKeyFormat(`  ${key}  `)).toBe(true);
  });

  it('accepts a key without a comment and one with a comment of several words', () => {
    const withoutComment = ED25519.replace(' anna@laptop', '');
    expect(isValidSshKeyFormat(withoutComment)).toBe(true);
    expect(parseSshKeyText(withoutComment)?.comment).toBe('');
    expect(parseSshKeyText(`${RSA} en nog wat`)?.comment).toBe('anna@laptop en nog wat');
  });

  it('has for every type the base64 of its wire header (length + name) as prefix', () => {
    for (const { type, prefix } of SSH_KEY_TYPES) {
      const header = String.fromCharCode(0, 0, 0, type.length) + type + '\0';
      expect(btoa(header).startsWith(prefix), type).toBe(true);
      // The prefix covers the type name: no two types share one.
      expect(SSH_KEY_TYPES.filter((other) => other.prefix.startsWith(prefix))).toHaveLength(1);
    }
  });

  it('refuses a type with the base64 prefix of another type', () => {
    const ed25519Body = ED25519.split(' ')[1];
    expect(isValidSshKeyFormat(`ssh-rsa ${ed25519Body} anna@laptop`)).toBe(false);
    expect(isValidSshKeyFormat(NISTP256.replace('ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384'))).toBe(false);
    expect(isValidSshKeyFormat(DSS.replace('ssh-dss', 'ssh-rsa'))).toBe(false);
  });

  it.each([
    ['empty', ''],
    ['only spaces', '   \n '],
    ['the type alone', 'ssh-rsa'],
    ['the type and the prefix only', 'ssh-rsa AAAAB3NzaC1yc2E'],
    ['an unknown type', 'ssh-foo AAAAB3NzaC1yc2EAAAADAQAB'],
    ['a certificate type', 'ssh-ed25519-cert-v01@openssh.com AAAAIHNzaC1lZDI1NTE5LWNlcnQtdjAxQG9wZW5zc2guY29tAAAA'],
    ['no space after the type', RSA.replace('ssh-rsa ', 'ssh-rsa')],
    ['a character outside base64 in the body', RSA.replace('AAAADAQAB', 'AAAADAQ-B')],
    ['four padding characters', NISTP384.replace('Gg== ', 'Gg==== ')],
    ['padding in the middle', RSA.replace('AAAADAQAB', 'AAAADA=QAB')],
    ['a private key', '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----'],
    ['two keys at once', `${ED25519}\n${RSA}`],
    ['a key broken over two lines', ED25519.replace('Rq8H8', 'Rq8\nH8')],
    ['the PuTTY/RFC 4716 format', '---- BEGIN SSH2 PUBLIC KEY ----\nAAAAC3NzaC1lZDI1NTE5AAAAIEe/21vMJTHu0Rq8H8jBCJ9KLe2T4Qbe5JMyhcIMRsh/\n---- END SSH2 PUBLIC KEY ----'],
    ['an upper-case type', ED25519.replace('ssh-ed25519', 'SSH-ED25519')],
  ])('refuses %s', (_case, text) => {
    expect(isValidSshKeyFormat(text)).toBe(false);
  });

  it('refuses text longer than the limit', () => {
    expect(isValidSshKeyFormat(`${ED25519} ${'x'.repeat(SSH_KEY_MAX_LENGTH)}`)).toBe(false);
  });

  it('pre-fills the name with the third word (the comment)', () => {
    expect(sshKeyNameFromText(ED25519)).toBe('anna@laptop');
    expect(sshKeyNameFromText(`  ${RSA} werk  `)).toBe('anna@laptop');
    expect(sshKeyNameFromText(ED25519.replace(' anna@laptop', ''))).toBe('');
    expect(sshKeyNameFromText('')).toBe('');
  });
});
