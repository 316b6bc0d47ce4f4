import { describeStoredSshKey } from '../ssh/ssh-public-key.ts';
import type { SshKeyJson } from '@devplein/contract/access';
export type { SshKeyJson };

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
