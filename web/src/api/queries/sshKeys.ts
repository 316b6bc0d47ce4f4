import type { KeyedMutator } from 'swr';
import { addSshKey as addSshKeyEndpoint, deleteSshKey as deleteSshKeyEndpoint, listSshKeys } from '@devplein/contract/http/ssh-keys';
import type { SshKeyJson as SshKey } from '@devplein/contract/access';
import { call, useEndpoint } from '../endpoints.ts';
export type { SshKey };

export interface SshKeysQuery {
  keys: SshKey[] | undefined;
  error: unknown;
  isLoading: boolean;
  mutate: KeyedMutator<SshKey[]>;
}

/** The signed-in developer's keys. */
export function useSshKeys(): SshKeysQuery {
  const { data, error, isLoading, mutate } = useEndpoint(listSshKeys, {});
  return { keys: data, error, isLoading, mutate };
}

/** Stores a key; answers the updated list. A 422 carries errors.sshKey / errors.name. */
export function addSshKey(input: { name: string; sshKey: string }): Promise<SshKey[]> {
  return call(addSshKeyEndpoint, { body: input });
}

/** Removes a key; answers the updated list. */
export function deleteSshKey(id: number): Promise<SshKey[]> {
  return call(deleteSshKeyEndpoint, { params: { id } });
}

/** The line `ssh-keygen -l` prints for a key, with the key's name as comment. */
export function fingerprintLine(key: SshKey): string {
  return `${key.bits} ${key.keyHash} ${key.name} (${key.type})`;
}
