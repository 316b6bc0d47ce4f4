import useSWR, { type KeyedMutator } from 'swr';
import { api, apiFetcher } from '../client.ts';
import type { SshKeyJson as SshKey } from '@devplein/contract/access';
export type { SshKey };

export const SSH_KEYS_KEY = '/api/user/ssh_keys';

export interface SshKeysQuery {
  keys: SshKey[] | undefined;
  error: unknown;
  isLoading: boolean;
  mutate: KeyedMutator<SshKey[]>;
}

/** The signed-in developer's keys. */
export function useSshKeys(): SshKeysQuery {
  const { data, error, isLoading, mutate } = useSWR<SshKey[]>(SSH_KEYS_KEY, apiFetcher<SshKey[]>);
  return { keys: data, error, isLoading, mutate };
}

/** POST /api/user/ssh_keys: stores a key; answers the updated list. A 422 carries errors.sshKey / errors.name. */
export function addSshKey(input: { name: string; sshKey: string }): Promise<SshKey[]> {
  return api.post<SshKey[]>(SSH_KEYS_KEY, input);
}

/** DELETE /api/user/ssh_keys/{id}: answers the updated list. */
export function deleteSshKey(id: number): Promise<SshKey[]> {
  return api.delete<SshKey[]>(`${SSH_KEYS_KEY}/${id}`);
}

/** The line `ssh-keygen -l` prints for a key, with the key's name as comment. */
export function fingerprintLine(key: SshKey): string {
  return `${key.bits} ${key.keyHash} ${key.name} (${key.type})`;
}
