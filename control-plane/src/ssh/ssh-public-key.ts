import { createPublicKey } from 'node:crypto';
import { createRequire } from 'node:module';
import type sshpkModule from 'sshpk';
import { parseSshKeyText, SSH_KEY_TYPES, type SshKeyType } from '@devplein/contract/validation/sshKeyFormat';

/** A public key that passed the §5 format rule AND a real parse; what the control plane stores and shows. */
/** sshpk, required on the first key parsed (SSH keys are added now and then; ~30 modules otherwise loaded at start); Node's module cache keeps it after that. */
const requireHere = createRequire(import.meta.url);
const sshpkLib = (): typeof sshpkModule => requireHere('sshpk') as typeof sshpkModule;

export interface ParsedSshPublicKey {
  type: SshKeyType;
  /** `type base64`, re-encoded from the parsed key (no comment): what authorized_keys needs. */
  normalized: string;
  /** SHA256 fingerprint exactly as `ssh-keygen -l -E sha256` prints it: 'SHA256:' + unpadded base64. */
  fingerprint: string;
  /** Key size in bits as `ssh-keygen -l` prints it (ed25519: 256). */
  bits: number;
  /** Algorithm label as `ssh-keygen -l` prints it in brackets: RSA, ECDSA, ED25519, DSA. */
  label: string;
  /** The comment after the base64 body ('' when none). */
  comment: string;
}

/** The wire type name sshpk's parsed key stands for. */
function wireTypeOf(key: sshpkModule.Key): string {
  switch (key.type) {
    case 'rsa':
      return 'ssh-rsa';
    case 'dsa':
      return 'ssh-dss';
    case 'ed25519':
      return 'ssh-ed25519';
    case 'ecdsa':
      return `ecdsa-sha2-${key.curve ?? ''}`;
    default:
      return '';
  }
}

const toBigInt = (data: Buffer): bigint => (data.length === 0 ? 0n : BigInt(`0x${data.toString('hex')}`));

function modPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n;
  let b = base % modulus;
  let e = exponent;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % modulus;
    b = (b * b) % modulus;
    e >>= 1n;
  }
  return result;
}

/** Odd primes below 10,000: a real RSA modulus (product of two large primes) has none of them as factor. */
const SMALL_PRIMES: readonly bigint[] = (() => {
  const limit = 10_000;
  const composite = new Uint8Array(limit);
  const primes: bigint[] = [];
  for (let n = 3; n < limit; n += 2) {
    if (composite[n]) continue;
    primes.push(BigInt(n));
    for (let m = n * n; m < limit; m += 2 * n) composite[m] = 1;
  }
  return primes;
})();

/**
 * RSA: the modulus must look like a product of two large primes (odd, at least 1024 bits, no small
 * factor) and the exponent must be odd and > 1. A flipped character inside the modulus mostly fails this.
 */
function isPlausibleRsa(key: sshpkModule.Key): boolean {
  const n = toBigInt(key.parts.find((part) => part.name === 'n')?.data ?? Buffer.alloc(0));
  const e = toBigInt(key.parts.find((part) => part.name === 'e')?.data ?? Buffer.alloc(0));
  if (key.size < 1024 || n % 2n === 0n || e < 3n || e % 2n === 0n) return false;
  return SMALL_PRIMES.every((prime) => n % prime !== 0n);
}

/** DSA: q divides p-1, and g and y lie in the order-q subgroup. Any corrupted parameter fails this. */
function isValidDsa(key: sshpkModule.Key): boolean {
  const part = (name: string): bigint => toBigInt(key.parts.find((p) => p.name === name)?.data ?? Buffer.alloc(0));
  const p = part('p');
  const q = part('q');
  const g = part('g');
  const y = part('y');
  if (p < 3n || q < 3n || (p - 1n) % q !== 0n) return false;
  if (g <= 1n || g >= p || y <= 1n || y >= p) return false;
  return modPow(g, q, p) === 1n && modPow(y, q, p) === 1n;
}

const ED25519_P = 2n ** 255n - 19n;
const ED25519_D = (((-121665n * modPow(121666n, ED25519_P - 2n, ED25519_P)) % ED25519_P) + ED25519_P) % ED25519_P;

/** Ed25519: the 32 bytes must decode to a point of the curve (about half of all random values do not). */
function isValidEd25519(key: sshpkModule.Key): boolean {
  const bytes = key.parts.find((p) => p.name === 'A')?.data;
  if (bytes === undefined || bytes.length !== 32) return false;
  const littleEndian = Buffer.from(bytes).reverse();
  const sign = (littleEndian[0] ?? 0) >> 7;
  littleEndian[0] = (littleEndian[0] ?? 0) & 0x7f;
  const y = toBigInt(littleEndian);
  if (y >= ED25519_P) return false;
  const ySquared = (y * y) % ED25519_P;
  const u = (ySquared - 1n + ED25519_P) % ED25519_P;
  const v = (ED25519_D * ySquared + 1n) % ED25519_P;
  const xSquared = (u * modPow(v, ED25519_P - 2n, ED25519_P)) % ED25519_P;
  if (xSquared === 0n) return sign === 0;
  return modPow(xSquared, (ED25519_P - 1n) / 2n, ED25519_P) === 1n;
}

/** OpenSSL's own import: refuses ECDSA points that are not on the curve, among others. */
function opensslAccepts(key: sshpkModule.Key): boolean {
  try {
    createPublicKey(key.toString('pkcs8'));
    return true;
  } catch {
    return false;
  }
}

/**
 * Parses an SSH public key for real: the §5 format rule, then sshpk, then checks that the
 * decoded key is the whole, canonical body and mathematically sound for its type. null = refuse.
 * (A changed character inside an RSA modulus can still give a plausible modulus: no check without
 * the private key can always tell; the other types are checked completely.)
 */
export function parseSshPublicKey(text: string): ParsedSshPublicKey | null {
  const parts = parseSshKeyText(text);
  if (parts === null) return null;
  const blob = Buffer.from(parts.body, 'base64');
  // Base64 that does not round-trip (bad padding, stray bits) is not what ssh-keygen writes.
  if (blob.toString('base64').replace(/=+$/, '') !== parts.body.replace(/=+$/, '')) return null;

  let key: sshpkModule.Key;
  try {
    key = sshpkLib().parseKey(`${parts.type} ${parts.body}`, 'ssh');
  } catch {
    return null;
  }
  if (wireTypeOf(key) !== parts.type) return null;
  // Trailing bytes or a different encoding of the same numbers: not an intact key.
  if (!key.toBuffer('rfc4253').equals(blob)) return null;

  const sound =
    key.type === 'rsa'
      ? isPlausibleRsa(key) && opensslAccepts(key)
      : key.type === 'dsa'
        ? isValidDsa(key) && opensslAccepts(key)
        : key.type === 'ed25519'
          ? isValidEd25519(key)
          : opensslAccepts(key);
  if (!sound) return null;

  const label = SSH_KEY_TYPES.find((entry) => entry.type === parts.type)?.label ?? key.type.toUpperCase();
  return {
    type: parts.type,
    normalized: `${parts.type} ${blob.toString('base64')}`,
    fingerprint: key.fingerprint('sha256').toString(),
    bits: key.size,
    label,
    comment: parts.comment,
  };
}

/**
 * Type label and size of a key stored by this module (already checked on the way in): a plain
 * sshpk parse, without the soundness checks, for presenting lists. null when it does not parse.
 */
export function describeStoredSshKey(normalized: string): { label: string; bits: number } | null {
  const type = normalized.split(' ')[0];
  const known = SSH_KEY_TYPES.find((entry) => entry.type === type);
  try {
    const key = sshpkLib().parseKey(normalized, 'ssh');
    return { label: known?.label ?? key.type.toUpperCase(), bits: key.size };
  } catch {
    return null;
  }
}
