import { execFile } from 'node:child_process';
import { Readable } from 'node:stream';
import tar from 'tar-stream';
import { describe, expect, it } from 'vitest';
import { MAX_TAR_ID, passwdEntry, tarEntries } from '../docker/container-files.ts';
import { STAGED_KEYS_NAME, authorizedKeysArchive, authorizedKeysText, countKeyLines } from './authorized-keys.ts';

const passwd = [
  'root:x:0:0:root:/root:/bin/bash',
  'students:x:2000:2000::/home/students:/bin/sh',
  'student:x:1001:1002:Student,,,:/home/student/:/bin/bash',
  '',
].join('\n');

describe('authorizedKeysText', () => {
  it('writes one line per key with the member as comment, and nothing for no keys', () => {
    expect(authorizedKeysText([])).toBe('');
    expect(
      authorizedKeysText([
        { publicKey: '  ssh-ed25519 AAAA their-own comment ', userId: 4 },
        { publicKey: 'ssh-rsa BBBB', userId: 9 },
      ]),
    ).toBe('ssh-ed25519 AAAA devplein-user-4\nssh-rsa BBBB devplein-user-9\n');
  });

  it('refuses a key that would become two lines', () => {
    expect(() => authorizedKeysText([{ publicKey: 'ssh-ed25519 AAAA\nssh-ed25519 BBBB', userId: 1 }])).toThrow(/malformed/);
  });

  it('counts key lines, not blank lines or comments', () => {
    expect(countKeyLines('')).toBe(0);
    expect(countKeyLines('# a note\nssh-ed25519 AAAA x\n\nssh-rsa BBBB y\n')).toBe(2);
  });
});

describe('passwdEntry', () => {
  it('finds the exact user with its ids and home (trailing slash dropped)', () => {
    expect(passwdEntry(passwd, 'student')).toEqual({ uid: 1001, gid: 1002, home: '/home/student' });
    expect(passwdEntry(passwd, 'root')).toEqual({ uid: 0, gid: 0, home: '/root' });
    expect(passwdEntry(passwd, 'nobody')).toBeUndefined();
    expect(passwdEntry('', 'student')).toBeUndefined();
  });

  it('refuses entries whose keys could land somewhere else or with a wrong owner', () => {
    const entry = (uid: string, gid: string, home: string) => passwdEntry(`student:x:${uid}:${gid}::${home}:/bin/sh\n`, 'student');
    expect(entry('1000', '1000', 'home/student')).toBeUndefined();
    expect(entry('1000', '1000', '/home/../etc')).toBeUndefined();
    expect(entry('1000', '1000', '/home/./student')).toBeUndefined();
    expect(entry('1000', '1000', '/')).toBeUndefined();
    expect(entry('', '1000', '/home/student')).toBeUndefined();
    expect(entry('-1', '1000', '/home/student')).toBeUndefined();
    expect(entry('1000', 'staff', '/home/student')).toBeUndefined();
    expect(entry(String(MAX_TAR_ID + 1), '1000', '/home/student')).toBeUndefined();
    expect(entry(String(MAX_TAR_ID), '0', '/srv/student')).toEqual({ uid: MAX_TAR_ID, gid: 0, home: '/srv/student' });
    expect(passwdEntry('student:x:1000:1000\n', 'student')).toBeUndefined();
  });
});

describe('authorizedKeysArchive', () => {
  const text = 'ssh-ed25519 AAAA devplein-user-4\n';

  it('holds .ssh (0700), the staged keys (0600) and authorized_keys hard-linked to them, all owned by the user', async () => {
    const archive = await authorizedKeysArchive({ uid: 1001, gid: 1002 }, text);
    const entries = await tarEntries(Readable.from([archive]));
    expect(entries.map(({ name, type, mode, uid, gid, linkname }) => ({ name, type, mode, uid, gid, linkname }))).toEqual([
      { name: '.ssh/', type: 'directory', mode: 0o700, uid: 1001, gid: 1002, linkname: '' },
      { name: `.ssh/${STAGED_KEYS_NAME}`, type: 'file', mode: 0o600, uid: 1001, gid: 1002, linkname: '' },
      { name: '.ssh/authorized_keys', type: 'link', mode: 0o600, uid: 1001, gid: 1002, linkname: `.ssh/${STAGED_KEYS_NAME}` },
    ]);
    expect(entries[1]?.data.toString('utf8')).toBe(text);
  });

  it('is a tar GNU tar reads the same way (ids, modes, link), so Docker gets what we mean', async () => {
    const archive = await authorizedKeysArchive({ uid: 1001, gid: 1002 }, text);
    const listing = await new Promise<string>((resolve, reject) => {
      const child = execFile('tar', ['--numeric-owner', '-tvf', '-'], (error, stdout) => (error ? reject(error) : resolve(stdout)));
      child.stdin?.end(archive);
    });
    const lines = listing.trim().split('\n').map((line) => line.split(/\s+/));
    expect(lines.map((fields) => [fields[0], fields[1], fields[2]])).toEqual([
      ['drwx------', '1001/1002', '0'],
      ['-rw-------', '1001/1002', String(text.length)],
      ['hrw-------', '1001/1002', '0'],
    ]);
    expect(listing).toContain(`.ssh/authorized_keys link to .ssh/${STAGED_KEYS_NAME}`);
    // An empty key set is an empty file: nobody logs in.
    const empty = await tarEntries(Readable.from([await authorizedKeysArchive({ uid: 0, gid: 0 }, '')]));
    expect(empty[1]?.data.length).toBe(0);
  });

  it('refuses ids a tar header cannot hold instead of writing a wrong owner', async () => {
    await expect(authorizedKeysArchive({ uid: MAX_TAR_ID + 1, gid: 1000 }, text)).rejects.toThrow(/uid .* does not fit/);
    await expect(authorizedKeysArchive({ uid: 1000, gid: -1 }, text)).rejects.toThrow(/gid -1/);
  });
});

describe('tarEntries', () => {
  it('stops at a file bigger than the limit', async () => {
    const pack = tar.pack();
    pack.entry({ name: 'passwd' }, Buffer.alloc(2048, 'x'));
    pack.finalize();
    await expect(tarEntries(pack, 1024)).rejects.toThrow(/larger than 1024 bytes/);
  });
});
