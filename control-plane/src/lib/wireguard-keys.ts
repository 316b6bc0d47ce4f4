import { createPrivateKey, createPublicKey, generateKeyPairSync, type JsonWebKey } from 'node:crypto';

/** A WireGuard key pair as `wg genkey | wg pubkey` prints it: base64 of the raw 32 bytes each. */
export interface WireguardKeyPair {
  privateKey: string;
  publicKey: string;
}

const base64urlToBase64 = (value: string): string => Buffer.from(value, 'base64url').toString('base64');

function rawKey(jwk: JsonWebKey, part: 'd' | 'x'): string {
  const value = jwk[part];
  if (typeof value !== 'string') throw new Error(`x25519 JWK without ${part}`);
  const key = base64urlToBase64(value);
  if (Buffer.from(key, 'base64').length !== 32) throw new Error(`x25519 ${part} is not 32 bytes`);
  return key;
}

/**
 * A new client key pair for a VPN peer. WireGuard keys are X25519 keys; Node's JWK export gives
 * the raw 32 bytes as base64url (`d` private, `x` public), WireGuard writes them as base64
 * (NOTES.md). The control plane makes the pair so the agent only ever sees the public key.
 */
export function generateWireguardKeyPair(): WireguardKeyPair {
  const { privateKey } = generateKeyPairSync('x25519');
  const jwk = privateKey.export({ format: 'jwk' });
  return { privateKey: rawKey(jwk, 'd'), publicKey: rawKey(jwk, 'x') };
}

/** PKCS#8 DER header of an X25519 private key; the raw 32 bytes follow. */
const X25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');

/** The public key of a base64 private key (what `wg pubkey` does); for checks and tests. */
export function wireguardPublicKeyOf(privateKey: string): string {
  const d = Buffer.from(privateKey, 'base64');
  if (d.length !== 32) throw new Error('a WireGuard private key is 32 bytes');
  const key = createPrivateKey({ key: Buffer.concat([X25519_PKCS8_PREFIX, d]), format: 'der', type: 'pkcs8' });
  return rawKey(createPublicKey(key).export({ format: 'jwk' }), 'x');
}
