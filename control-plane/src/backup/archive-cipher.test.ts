import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackupArchiveError, HEADER_BYTES, decryptToFile, encryptToFile, readBackupKey } from './archive-cipher.ts';

let dir: string;
const key = randomBytes(32);
const plain = randomBytes(300_000);
let archive: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'devplein-cipher-'));
  archive = path.join(dir, 'a.backup');
  await encryptToFile(Readable.from([plain.subarray(0, 100_000), plain.subarray(100_000)]), archive, key);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function reason(file: string, withKey = key): Promise<string | undefined> {
  const out = path.join(dir, `out-${randomBytes(4).toString('hex')}`);
  try {
    await decryptToFile(file, out, withKey);
    return undefined;
  } catch (error) {
    // A refused archive leaves no partly decrypted file behind.
    await expect(stat(out)).rejects.toThrow();
    if (error instanceof BackupArchiveError) return error.reason;
    throw error;
  }
}

/** The archive with one bit of byte `index` flipped. */
function flipped(index: number): (bytes: Buffer) => Buffer {
  return (bytes) => {
    bytes.writeUInt8(bytes.readUInt8(index) ^ 1, index);
    return bytes;
  };
}

async function variant(change: (bytes: Buffer) => Buffer): Promise<string> {
  const file = path.join(dir, `v-${randomBytes(4).toString('hex')}`);
  await writeFile(file, change(Buffer.from(await readFile(archive))));
  return file;
}

describe('backup archive encryption', () => {
  it('decrypts what it encrypted, byte for byte; the ciphertext does not contain the plain text', async () => {
    const out = path.join(dir, 'plain');
    await decryptToFile(archive, out, key);
    expect((await readFile(out)).equals(plain)).toBe(true);
    expect((await readFile(archive)).includes(plain.subarray(0, 64))).toBe(false);
  });

  it('names a wrong key before decrypting, and refuses a flipped bit, a cut-off end, a changed header and a foreign file', async () => {
    expect(await reason(archive, randomBytes(32))).toBe('wrong-key');
    expect(await reason(await variant(flipped(HEADER_BYTES + 1000)))).toBe('damaged');
    expect(await reason(await variant((bytes) => bytes.subarray(0, bytes.length - 5000)))).toBe('damaged');
    // The IV is part of the authenticated header.
    expect(await reason(await variant(flipped(HEADER_BYTES - 1)))).toBe('damaged');
    expect(await reason(await variant((bytes) => (bytes.writeUInt8(9, 8), bytes)))).toBe('unknown-format');
    expect(await reason(await variant((bytes) => Buffer.concat([Buffer.from('PK'), bytes.subarray(2)])))).toBe('not-an-archive');
    expect(await reason(await variant(() => Buffer.from('kort')))).toBe('not-an-archive');
  });

  it('reads a key file of 32 bytes in base64 and refuses anything else with a Dutch message', async () => {
    const good = path.join(dir, 'good.key');
    await writeFile(good, `${key.toString('base64')}\n`);
    expect((await readBackupKey(good)).equals(key)).toBe(true);
    const short = path.join(dir, 'short.key');
    await writeFile(short, randomBytes(16).toString('base64'));
    await expect(readBackupKey(short)).rejects.toThrow('geen 32 bytes in base64');
    await expect(readBackupKey(path.join(dir, 'missing.key'))).rejects.toThrow('Backupsleutel niet gevonden');
  });
});
