import { generateKeyPairSync } from 'node:crypto';

/** A fresh OpenSSH ed25519 public key line, as a student pastes it: `ssh-ed25519 <base64> <comment>`. */
export function ed25519PublicKey(comment: string): string {
  const raw = Buffer.from(generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x ?? '', 'base64url');
  const field = (value: Buffer): Buffer => Buffer.concat([Buffer.from([0, 0, 0, value.length]), value]);
  return `ssh-ed25519 ${Buffer.concat([field(Buffer.from('ssh-ed25519')), field(raw)]).toString('base64')} ${comment}`;
}
