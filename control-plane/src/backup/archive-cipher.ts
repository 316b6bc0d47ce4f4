import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { appendFile, open, readFile, rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/*
 * The encryption of a backup archive: AES-256-GCM (node:crypto) over the whole tar, with a key
 * that is never in the archive (a file of 32 random bytes in base64, /etc/devplein/backup.key).
 *
 * Why not `age`: it is one more Debian package on every host and in CI, while node:crypto is in
 * the bundle's own node already; one symmetric key file is as easy to keep offline as an age
 * identity. GCM authenticates: a wrong key, a flipped bit or a cut-off file is refused.
 *
 * File layout (all in the clear but the ciphertext; the header is the GCM's additional data):
 *   8 bytes  magic "DPBACKUP"
 *   1 byte   format version (1)
 *   8 bytes  key id: the first 8 bytes of SHA-256("devplein-backup-key:" + key), so a wrong key is
 *            named before anything is decrypted (it says nothing about the key itself)
 *   12 bytes IV (random per archive)
 *   …        ciphertext
 *   16 bytes GCM authentication tag
 */

const MAGIC = Buffer.from('DPBACKUP', 'ascii');
const FORMAT_VERSION = 1;
const KEY_ID_BYTES = 8;
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const HEADER_BYTES = MAGIC.length + 1 + KEY_ID_BYTES + IV_BYTES;

/** Why an archive cannot be opened; `message` is the Dutch line the command prints. */
export class BackupArchiveError extends Error {
  override name = 'BackupArchiveError';
  constructor(
    readonly reason: 'not-an-archive' | 'unknown-format' | 'wrong-key' | 'damaged' | 'bad-key-file',
    message: string,
  ) {
    super(message);
  }
}

/** The 32-byte key from a key file (base64 text, as `openssl rand -base64 32` writes it). */
export async function readBackupKey(file: string): Promise<Buffer> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new BackupArchiveError(
      'bad-key-file',
      code === 'ENOENT'
        ? `Backupsleutel niet gevonden: ${file}. Maak er een met: openssl rand -base64 32 > ${file} (en bewaar een kopie offline), of geef --key.`
        : `Backupsleutel niet leesbaar: ${file} (${code ?? String(error)}).`,
    );
  }
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== 32 || !/^[A-Za-z0-9+/]+=*$/.test(text.trim())) {
    throw new BackupArchiveError('bad-key-file', `Backupsleutel ${file} is geen 32 bytes in base64 (maak er een met: openssl rand -base64 32).`);
  }
  return key;
}

/** The key id written into the header (see the file layout above). */
export function backupKeyId(key: Buffer): Buffer {
  return createHash('sha256').update('devplein-backup-key:').update(key).digest().subarray(0, KEY_ID_BYTES);
}

/** Encrypts `source` into `target` (created or overwritten; the caller renames it into place). */
export async function encryptToFile(source: Readable, target: string, key: Buffer): Promise<void> {
  const iv = randomBytes(IV_BYTES);
  const header = Buffer.concat([MAGIC, Buffer.from([FORMAT_VERSION]), backupKeyId(key), iv]);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(header);
  const out = createWriteStream(target, { mode: 0o600 });
  out.write(header);
  await pipeline(source, cipher, out);
  await appendFile(target, cipher.getAuthTag());
}

/**
 * Decrypts `archive` into `target` and verifies it: when this resolves, every byte of `target` is
 * authentic. On any failure `target` is removed and a BackupArchiveError says why. Nothing else is
 * touched, so a restore decrypts first and changes the server only after this succeeded.
 */
export async function decryptToFile(archive: string, target: string, key: Buffer): Promise<void> {
  const handle = await open(archive, 'r');
  let header: Buffer;
  let tag: Buffer;
  let size: number;
  try {
    size = (await handle.stat()).size;
    if (size < HEADER_BYTES + TAG_BYTES) throw new BackupArchiveError('not-an-archive', `${archive} is geen devplein-backup (te kort).`);
    header = Buffer.alloc(HEADER_BYTES);
    await handle.read(header, 0, HEADER_BYTES, 0);
    tag = Buffer.alloc(TAG_BYTES);
    await handle.read(tag, 0, TAG_BYTES, size - TAG_BYTES);
  } finally {
    await handle.close();
  }
  if (!header.subarray(0, MAGIC.length).equals(MAGIC)) throw new BackupArchiveError('not-an-archive', `${archive} is geen devplein-backup.`);
  if (header[MAGIC.length] !== FORMAT_VERSION) {
    throw new BackupArchiveError('unknown-format', `${archive} heeft een onbekende backupversie (${header[MAGIC.length]}): herstel met de devplein-versie die de backup maakte, of een nieuwere.`);
  }
  const keyId = header.subarray(MAGIC.length + 1, MAGIC.length + 1 + KEY_ID_BYTES);
  if (!keyId.equals(backupKeyId(key))) {
    throw new BackupArchiveError(
      'wrong-key',
      `Verkeerde backupsleutel: ${archive} is met een andere sleutel versleuteld. Er is niets veranderd. Gebruik de sleutel van de server die de backup maakte (--key).`,
    );
  }
  const iv = header.subarray(MAGIC.length + 1 + KEY_ID_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAAD(header);
  decipher.setAuthTag(tag);
  try {
    await pipeline(createReadStream(archive, { start: HEADER_BYTES, end: size - TAG_BYTES - 1 }), decipher, createWriteStream(target, { mode: 0o600 }));
  } catch (error) {
    await rm(target, { force: true });
    if (error instanceof Error && /unable to authenticate|auth/i.test(error.message)) {
      throw new BackupArchiveError('damaged', `${archive} is beschadigd of gewijzigd (de controle van de versleuteling faalt). Er is niets veranderd.`);
    }
    throw error;
  }
}
