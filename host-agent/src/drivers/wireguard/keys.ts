/**
 * WireGuard keys: x25519, raw 32 bytes, base64 (as `wg genkey` / `wg pubkey` print them). Made
 * with node:crypto; the private key never goes on a command line.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';

/** Base64 of exactly 32 bytes, canonical (44 characters ending in one '='), as wg prints keys. */
export function isWireGuardKey(text: string): boolean {
  if (!/^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/.test(text)) return false;
  return Buffer.from(text, 'base64').length === 32;
}

export interface WireGuardKeyPair {
  privateKey: string;
  publicKey: string;
}

const base64 = (base64url: string | undefined): string => Buffer.from(base64url ?? '', 'base64url').toString('base64');

/** A new x25519 key pair in WireGuard's encoding. */
export function generateWireGuardKeyPair(): WireGuardKeyPair {
  const { privateKey } = generateKeyPairSync('x25519');
  const jwk = privateKey.export({ format: 'jwk' });
  return { privateKey: base64(jwk.d), publicKey: base64(jwk.x) };
}

/** The public key of a WireGuard private key (what `wg pubkey` prints). */
export function publicKeyOf(privateKey: string): string {
  if (!isWireGuardKey(privateKey)) throw new Error('not a WireGuard private key (base64 of 32 bytes)');
  // PKCS#8 wrapping of a raw X25519 private key (RFC 8410): a fixed 16-byte header, then d.
  const der = Buffer.concat([Buffer.from('302e020100300506032b656e04220420', 'hex'), Buffer.from(privateKey, 'base64')]);
  const key = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  return base64(createPublicKey(key).export({ format: 'jwk' }).x);
}
