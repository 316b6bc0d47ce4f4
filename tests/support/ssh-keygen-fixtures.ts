import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** One key pair made by the installed `ssh-keygen`, with what `ssh-keygen -l -E sha256` says about it. */
export interface GeneratedSshKey {
  /** e.g. 'rsa-2048', 'ecdsa-384', 'ed25519', 'dsa-1024'. */
  kind: string;
  /** The .pub file's text, trimmed: `type base64 comment`. */
  publicKey: string;
  privateKey: string;
  /** Second field of `ssh-keygen -l -E sha256 -f key.pub`. */
  fingerprint: string;
  /** First field of that line. */
  bits: number;
  /** The bracketed last field, e.g. 'ED25519'. */
  label: string;
  comment: string;
}

/** Every key type of spec §5 with the sizes ssh-keygen offers for it. */
export const SSH_KEYGEN_KINDS: readonly { kind: string; type: string; bits?: number }[] = [
  { kind: 'rsa-2048', type: 'rsa', bits: 2048 },
  { kind: 'rsa-3072', type: 'rsa', bits: 3072 },
  { kind: 'ecdsa-256', type: 'ecdsa', bits: 256 },
  { kind: 'ecdsa-384', type: 'ecdsa', bits: 384 },
  { kind: 'ecdsa-521', type: 'ecdsa', bits: 521 },
  { kind: 'ed25519', type: 'ed25519' },
  { kind: 'dsa-1024', type: 'dsa', bits: 1024 },
];

/**
 * Makes real keys with ssh-keygen (test helper; no passphrase, in a temporary directory that is
 * removed again). Kinds the installed ssh-keygen no longer makes (DSA in newer OpenSSH) are left
 * out and listed in `unsupported`.
 */
export function generateSshKeys(
  options: { kinds?: readonly string[]; comment?: (kind: string) => string } = {},
): { keys: GeneratedSshKey[]; unsupported: string[] } {
  const comment = options.comment ?? ((kind: string) => `${kind}@devplein-test`);
  const dir = mkdtempSync(path.join(tmpdir(), 'devplein-ssh-keys-'));
  const keys: GeneratedSshKey[] = [];
  const unsupported: string[] = [];
  try {
    for (const { kind, type, bits } of SSH_KEYGEN_KINDS.filter((entry) => options.kinds?.includes(entry.kind) ?? true)) {
      const file = path.join(dir, kind);
      const args = ['-q', '-t', type, ...(bits === undefined ? [] : ['-b', String(bits)]), '-N', '', '-C', comment(kind), '-f', file];
      try {
        execFileSync('ssh-keygen', args, { stdio: ['ignore', 'pipe', 'pipe'] });
      } catch {
        unsupported.push(kind);
        continue;
      }
      const listed = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${file}.pub`], { encoding: 'utf8' }).trim();
      const fields = listed.split(' ');
      keys.push({
        kind,
        publicKey: readFileSync(`${file}.pub`, 'utf8').trim(),
        privateKey: readFileSync(file, 'utf8'),
        fingerprint: fields[1] ?? '',
        bits: Number(fields[0]),
        label: (fields.at(-1) ?? '').replace(/[()]/g, ''),
        comment: comment(kind),
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { keys, unsupported };
}
