import { describeStoredSshKey } from '../ssh/ssh-public-key.ts';

/** One key of GET/POST/DELETE /api/user/ssh_keys (spec §3: id, name, keyHash; plus type and bits for the list line). */
export interface SshKeyJson {
  id: number;
  name: string;
  /** 'SHA256:…' as `ssh-keygen -l -E sha256` prints it. */
  keyHash: string;
  /** RSA, ECDSA, ED25519 or DSA: the bracketed type of `ssh-keygen -l`. */
  type: string;
  bits: number;
  createdAt: string;
}

export interface SshKeyRow {
  id: number;
  name: string;
  public_key: string;
  fingerprint: string;
  created_at: Date | string;
}

export function presentSshKey(row: SshKeyRow): SshKeyJson {
  const described = describeStoredSshKey(row.public_key);
  return {
    id: row.id,
    name: row.name,
    keyHash: row.fingerprint,
    type: described?.label ?? row.public_key.split(' ')[0] ?? '',
    bits: described?.bits ?? 0,
    createdAt: new Date(row.created_at).toISOString(),
  };
}
